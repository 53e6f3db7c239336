import { CONFIG_CHANGED_SUBJECT, searchSection, type ConfigChangedEvent, type EventBus, type GrpcClient, type Logger } from '@tollgate/kit';
import type { SiteClient } from '@tollgate/protos/site';
import type { SearchEngine, SearchSettings } from '../engine/types';

export interface SettingsSync {
  /** Resolves once the settings were applied at least once (or the sync stopped). */
  firstApplied: Promise<void>;
  stop(): Promise<void>;
}

/** The `search` configuration section in the engine's terms; anything invalid leaves the current settings. */
export function toEngineSettings(value: unknown): SearchSettings | undefined {
  const parsed = searchSection.safeParse(value);
  if (!parsed.success) return undefined;
  return { synonyms: parsed.data.synonyms, stopWords: parsed.data.stop_words, typoTolerance: parsed.data.typo_tolerance };
}

/**
 * Keeps the engine on the `search` configuration (owned by the docs service): read at start (retried
 * until the docs service answers), applied again on every `docs.config.changed` event for `search`
 * (watched live by every replica), and re-read every `refreshMs` as a safety net for a missed event.
 */
export async function syncSearchSettings(bus: EventBus, site: GrpcClient<SiteClient>, engine: SearchEngine, log: Logger, refreshMs = 60_000): Promise<SettingsSync> {
  let applied = -1;
  let stopped = false;
  const apply = async (version: number, value: unknown) => {
    if (version <= applied) return;
    const settings = toEngineSettings(value);
    if (!settings) return void log.warn({ version }, 'invalid search settings ignored');
    await engine.applySettings(settings);
    applied = version;
    log.info({ version, synonyms: settings.synonyms.length, stopWords: settings.stopWords.length, typoTolerance: settings.typoTolerance }, 'search settings applied');
  };
  const load = async () => {
    const section = await site.getConfig({ section: 'search' });
    await apply(section.version, section.value);
  };
  const watcher = await bus.watch<ConfigChangedEvent>(CONFIG_CHANGED_SUBJECT, (m) => {
    if (m.data?.section !== 'search') return;
    apply(m.data.version, m.data.value).catch((err: unknown) => log.warn({ err }, 'applying search settings failed'));
  });
  const firstApplied = (async () => {
    for (let attempt = 0; !stopped; attempt++) {
      try {
        return await load();
      } catch (err) {
        if (attempt % 10 === 0) log.warn({ err }, 'search settings not read yet; retrying');
        await new Promise((r) => setTimeout(r, Math.min(5_000, 200 * 2 ** Math.min(attempt, 5))));
      }
    }
  })();
  const timer = setInterval(() => load().catch((err: unknown) => log.debug({ err }, 'search settings refresh failed')), refreshMs);
  timer.unref();
  return {
    firstApplied,
    stop: async () => {
      stopped = true;
      clearInterval(timer);
      await watcher.stop();
    },
  };
}
