import { join } from 'node:path';
import { HotPool, RecentValues, createGrpcClient, startServiceRuntime, type ServiceModule } from '@tollgate/kit';
import { BillingClient } from '@tollgate/protos/billing';
import { Admissions } from './admission/admissions';
import { AppCatalogue } from './repo/app-catalogue';
import { reconcileAdmissions } from './usecases/reconcile-admissions';
import { TasksService } from '@tollgate/protos/tasks';
import { loadTasksConfig, type TasksConfig } from './config';
import type { TasksContext } from './context';
import { createTasksDb } from './db';
import { RunningTasks } from './execution/running';
import { RunTimes } from './execution/run-times';
import { AdmissionGate } from './execution/admission-gate';
import { AppRepo } from './repo/app-repo';
import { ConversationRepo } from './repo/conversation-repo';
import { Outbox } from './repo/outbox';
import { RunStatsRepo } from './repo/run-stats-repo';
import { TaskRepo } from './repo/task-repo';
import { tasksGrpc } from './server';
import { seedDemoApps } from './usecases/apps/seed-demo-apps';
import { appSecretBox, sealApiKeys } from './usecases/apps/seal-api-keys';
import { Worker } from './worker/worker';
import { startWebhooks } from './webhooks';

/** How often the apps' run times are written back (they are kept in memory in between). */
const RUN_TIMES_FLUSH_MS = 5_000;
/** A submission's time estimate uses the last count of the waiting tasks, recounted once it is this old. */
const WAITING_COUNT_MAX_AGE_MS = 250;

export const tasksService: ServiceModule<TasksConfig> = {
  name: 'tasks',
  loadConfig: loadTasksConfig,
  start: (config, { bus, log }) =>
    startServiceRuntime({
      name: 'tasks',
      config,
      log,
      migrationsDir: join(__dirname, '..', 'prisma', 'migrations'),
      createDb: createTasksDb,
      build: async (db, { metrics }) => {
        const hot = new HotPool(config.databaseUrl, { max: config.pgPoolMax, maxWaiting: config.pgMaxWaiting });
        const outbox = new Outbox(db, hot, bus, log);
        const appRepo = new AppRepo(db, appSecretBox(config, log));
        const tasks = new TaskRepo(db, hot, outbox);
        const ctx: TasksContext = {
          apps: new AppCatalogue(appRepo, bus, log, config.appCacheMs),
          admissions: new Admissions(createGrpcClient(BillingClient, config.billingAddress), { leaseSeconds: config.admissionLeaseSeconds, settleLingerMs: config.settleLingerMs }, log),
          tasks,
          waiting: new RecentValues(() => tasks.countWaiting(), {
            maxAgeMs: WAITING_COUNT_MAX_AGE_MS,
            onRefreshFailed: (_queue, err) => log.warn({ err }, 'recounting the waiting tasks failed; estimates use the last count'),
          }),
          conversations: new ConversationRepo(db),
          outbox,
          running: new RunningTasks(),
          runTimes: new RunTimes(new RunStatsRepo(db), log),
          admitting: new AdmissionGate(config.maxAdmitting, config.admitWaitMs),
          bus,
          log,
          settings: { workerId: config.workerId, leaseMs: config.leaseMs, providerTimeoutMs: config.providerTimeoutMs, workers: config.workers, allowPrivateWebhooks: config.webhooks.allowPrivateNetworks },
        };
        await sealApiKeys(appRepo, log);
        await ctx.apps.watch();
        if (config.seedDemoApps) await seedDemoApps(ctx);
        await ctx.running.watch(bus);
        await ctx.runTimes.start(bus, RUN_TIMES_FLUSH_MS);
        ctx.outbox.start(config.pollMs);
        ctx.admissions.start();
        let reconciling = Promise.resolve();
        const reconciler = setInterval(() => {
          reconciling = reconcileAdmissions(ctx)
            .then(() => undefined)
            .catch((err: unknown) => log.warn({ err }, 'reconciling expired admissions failed; retrying at the next period'));
        }, config.reconcileIntervalMs);
        reconciler.unref();
        const worker = config.workers > 0 ? new Worker(ctx, { slots: config.workers, claimLingerMs: config.claimLingerMs, pollMs: config.pollMs, maxAttempts: config.maxAttempts }) : undefined;
        await worker?.start(bus);
        log.info({ workerId: config.workerId, workers: config.workers, leaseMs: config.leaseMs }, 'tasks worker started');
        const webhooks = await startWebhooks({ db, bus, log, metrics, tasks: ctx.tasks, settings: config.webhooks });
        return {
          services: [{ definition: TasksService, implementation: tasksGrpc(ctx, log, { maxInFlight: config.maxInFlight }) }, webhooks.binding],
          onStop: async () => {
            await webhooks.stop();
            clearInterval(reconciler);
            await reconciling;
            await worker?.stop();
            ctx.running.abortAll('shutdown');
            await ctx.running.stop();
            await ctx.apps.stop();
            await ctx.outbox.stop();
            await ctx.runTimes.stop();
            await ctx.admissions.stop();
            await hot.end();
          },
        };
      },
    }),
};
