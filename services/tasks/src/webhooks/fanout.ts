import { DOCUMENT_SUBJECTS, TASK_STATUS_SUBJECTS, documentJson, taskJson, type DocumentEvent, type EventBus, type Logger, type Subscription, type TaskStatusEvent } from '@tollgate/kit';
import { encodeTask } from '../encode';
import type { TaskRepo } from '../repo/task-repo';
import type { DeliveryRepo } from './delivery-repo';
import type { ActiveEndpoints } from './active-endpoints';
import { deliveryIdOf, eventBody, eventIdOf } from './event-body';
import { documentEventType, taskEventType } from './events';
import { mayReadDocument, type Readers } from './readers';
import type { EndpointRecord, NewDelivery } from './types';

/** Bus deliveries of one event before it is given up (logged by the bus). */
const FANOUT_MAX_DELIVER = 100;

/** The target name of a per-submission webhook in a delivery id. */
const SUBMISSION_TARGET = 'submission';

export interface FanoutDeps {
  endpoints: Pick<ActiveEndpoints, 'activeFor'>;
  deliveries: DeliveryRepo;
  tasks: TaskRepo;
  readers: Readers;
  maxAttempts: number;
  /** Called once deliveries were queued. */
  queued: () => void;
  log: Logger;
}

const toDelivery = (deps: FanoutDeps, eventId: string, type: string, accountId: number, body: string) => (e: EndpointRecord): NewDelivery => ({
  id: deliveryIdOf(eventId, e.id),
  eventId,
  eventType: type,
  endpointId: e.id,
  accountId,
  url: e.url,
  body,
  maxAttempts: deps.maxAttempts,
});

/** A task's final state: to its owner's subscriptions and to the `webhook` of its submission. */
export async function fanOutTask(deps: FanoutDeps, e: TaskStatusEvent): Promise<number> {
  const type = taskEventType(e.status);
  if (!type) return 0;
  const endpoints = await deps.endpoints.activeFor(type, e.account_id);
  // The common case, an account without subscriptions and a submission without `webhook`, reads nothing more.
  if (endpoints.length === 0 && e.webhook === false) return 0;
  const task = await deps.tasks.find(e.task_number);
  if (!task) return 0;
  const submissionUrl = task.request.webhook;
  if (endpoints.length === 0 && !submissionUrl) return 0;
  const eventId = eventIdOf(`task:${e.task_number}:${e.status}`);
  const body = eventBody(eventId, type, new Date(e.at), taskJson(encodeTask(task)));
  const deliveries = endpoints.map(toDelivery(deps, eventId, type, task.accountId, body));
  if (submissionUrl) {
    deliveries.push({ id: deliveryIdOf(eventId, SUBMISSION_TARGET), eventId, eventType: type, endpointId: null, accountId: task.accountId, url: submissionUrl, body, maxAttempts: deps.maxAttempts });
  }
  await deps.deliveries.enqueue(deliveries);
  return deliveries.length;
}

/** A document change: to the subscriptions of every account that may read the document. */
export async function fanOutDocument(deps: FanoutDeps, e: DocumentEvent): Promise<number> {
  const type = documentEventType(e);
  const candidates = await deps.endpoints.activeFor(type);
  if (candidates.length === 0) return 0;
  const doc = e.document
    ? { authorAccountId: e.document.author_account_id, status: e.document.status }
    : { authorAccountId: e.author_account_id ?? 0, status: e.status ?? '' };
  const readers = await deps.readers.of(candidates.map((c) => c.accountId));
  const allowed = candidates.filter((c) => {
    const r = readers.get(c.accountId);
    return r !== undefined && mayReadDocument(r, doc);
  });
  if (allowed.length === 0) return 0;
  const eventId = eventIdOf(`document:${e.id}:${e.version}:${type}`);
  const data = e.document ? documentJson(documentMessage(e)) : { id: e.id, version: e.version, permanent: true };
  const body = eventBody(eventId, type, new Date(e.at), data);
  const deliveries = allowed.map((c) => toDelivery(deps, eventId, type, c.accountId, body)(c));
  await deps.deliveries.enqueue(deliveries);
  return deliveries.length;
}

/** The event's document in the docs service's message shape, for the shared renderer. */
function documentMessage(e: DocumentEvent) {
  const d = e.document!;
  return {
    id: d.id,
    slug: d.slug,
    title: d.title,
    content: d.content,
    category: d.category,
    tags: d.tags,
    authorAccountId: d.author_account_id,
    status: d.status,
    version: e.version,
    createdAt: d.created_at,
    updatedAt: d.updated_at,
    deletedAt: d.deleted_at ?? '',
  };
}

/** Durable consumers of task status and document events (JetStream durables in the distributed mode). */
export async function consumeWebhookEvents(bus: EventBus, deps: FanoutDeps): Promise<Subscription[]> {
  const handle = <T>(what: string, fan: (deps: FanoutDeps, e: T) => Promise<number>) => async (m: { subject: string; data: T }) => {
    const queued = await fan(deps, m.data).catch((err: unknown) => {
      deps.log.warn({ err, subject: m.subject }, `webhook fan-out of a ${what} event failed; the bus redelivers it`);
      throw err;
    });
    if (queued > 0) {
      deps.log.debug({ subject: m.subject, queued }, `webhook deliveries queued for a ${what} event`);
      deps.queued();
    }
  };
  // A fan-out fails only while the database or the keys service is unreachable: keep redelivering for minutes.
  const maxDeliver = FANOUT_MAX_DELIVER;
  return [
    await bus.subscribe<TaskStatusEvent>({ durable: 'webhooks-task-events', subjects: TASK_STATUS_SUBJECTS, handler: handle('task', fanOutTask), maxDeliver }),
    await bus.subscribe<DocumentEvent>({ durable: 'webhooks-document-events', subjects: DOCUMENT_SUBJECTS, handler: handle('document', fanOutDocument), maxDeliver }),
  ];
}
