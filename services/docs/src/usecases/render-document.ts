import { CONFIG_DEFAULTS, pluginsSection, type PluginsSectionValue } from '@tollgate/kit';
import type { Actor } from '../domain/document';
import type { DocumentsRepo } from '../repo/documents-repo';
import type { ConfigRepo } from '../site/config-repo';
import { renderMarkdown, type Rendered } from '../site/render-markdown';
import { findLive } from './access';

/** A readable document as sanitised HTML, with the renderer plugins of the `plugins` configuration. */
export async function renderDocument(docs: DocumentsRepo, config: ConfigRepo, actor: Actor, id: number): Promise<Rendered & { id: number; version: number; title: string }> {
  const doc = await findLive(docs, actor, id);
  const stored = await config.find('plugins');
  const parsed = stored ? pluginsSection.safeParse(stored.value) : undefined;
  const plugins: PluginsSectionValue = parsed?.success ? parsed.data : CONFIG_DEFAULTS.plugins;
  return { id: doc.id, version: doc.version, title: doc.title, ...renderMarkdown(doc.content, plugins) };
}
