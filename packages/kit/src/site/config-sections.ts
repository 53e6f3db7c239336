import { z } from 'zod';

/**
 * The configuration sections of the documentation site, their schemas and defaults. Shared by the
 * gateway (validation, OpenAPI), the docs service (the owner, which validates again before storing)
 * and the search service (which applies `search`). Objects are strict: a misspelled field is a 422.
 */
const hex = z.string().regex(/^#(?:[0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'a colour in hex, #rgb or #rrggbb');
const httpUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https?:\/\//i.test(u), 'an http(s) URL');
const httpsUrl = z
  .string()
  .max(2048)
  .url()
  .refine((u) => /^https:\/\//i.test(u), 'an https URL');
const term = z.string().trim().min(1).max(64);

export const CUSTOM_CSS_MAX = 20_000;

export const siteSection = z
  .object({
    name: z.string().trim().min(1).max(100),
    description: z.string().max(500),
    base_url: httpUrl.nullable(),
    default_language: z.string().regex(/^[a-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/, 'a language tag such as en or pt-BR'),
    logo_url: httpUrl.nullable(),
    contact: z.object({ name: z.string().max(100), email: z.string().email().max(254).nullable() }).strict(),
  })
  .strict();

export const themeSection = z
  .object({
    colors: z.object({ primary: hex, secondary: hex, background: hex, text: hex }).strict(),
    font: z.string().trim().min(1).max(100).regex(/^[A-Za-z0-9 ,'"-]+$/, 'a font family list (letters, digits, spaces, commas, quotes, dashes)'),
    dark_mode_default: z.boolean(),
    custom_css: z.string().max(CUSTOM_CSS_MAX),
  })
  .strict();

export const searchSection = z
  .object({
    synonyms: z.array(z.array(term).min(2, 'a group needs at least two equivalent terms').max(20)).max(500),
    stop_words: z.array(term).max(500),
    typo_tolerance: z.boolean(),
  })
  .strict();

const plugin = <S extends z.ZodType>(settings: S) => z.object({ enabled: z.boolean(), settings }).strict();

/** Each plugin of the renderer, with its own settings schema; an unknown plugin is refused. */
export const pluginsSection = z
  .object({
    table_of_contents: plugin(z.object({ min_level: z.number().int().min(1).max(6), max_level: z.number().int().min(1).max(6) }).strict()).refine(
      (p) => p.settings.min_level <= p.settings.max_level,
      { message: 'settings.min_level must not exceed settings.max_level', path: ['settings', 'min_level'] },
    ),
    heading_anchors: plugin(z.object({ symbol: z.string().min(1).max(8), levels: z.array(z.number().int().min(1).max(6)).min(1).max(6) }).strict()),
    code_highlighting: plugin(z.object({ languages: z.array(z.string().regex(/^[a-z0-9+#-]{1,32}$/)).max(100) }).strict()),
  })
  .strict();

export const integrationsSection = z
  .object({
    default_webhook_events: z.array(z.string().regex(/^[a-z]+(?:\.[a-z_]+)+$/, 'an event name such as document.created')).max(50),
    notification_url: httpsUrl.nullable(),
    notification_events: z.array(z.string().regex(/^[a-z]+(?:\.[a-z_]+)+$/, 'an activity type such as config.updated')).max(50),
  })
  .strict();

export const CONFIG_SECTIONS = {
  site: siteSection,
  theme: themeSection,
  search: searchSection,
  plugins: pluginsSection,
  integrations: integrationsSection,
} as const;

export type ConfigSectionName = keyof typeof CONFIG_SECTIONS;
export const CONFIG_SECTION_NAMES = Object.keys(CONFIG_SECTIONS) as ConfigSectionName[];
export type SearchSectionValue = z.infer<typeof searchSection>;
export type PluginsSectionValue = z.infer<typeof pluginsSection>;

export const CONFIG_DEFAULTS: { [K in ConfigSectionName]: z.infer<(typeof CONFIG_SECTIONS)[K]> } = {
  site: { name: 'Documentation', description: '', base_url: null, default_language: 'en', logo_url: null, contact: { name: '', email: null } },
  theme: { colors: { primary: '#2563eb', secondary: '#64748b', background: '#ffffff', text: '#111827' }, font: 'system-ui, sans-serif', dark_mode_default: false, custom_css: '' },
  search: { synonyms: [], stop_words: [], typo_tolerance: true },
  plugins: {
    table_of_contents: { enabled: true, settings: { min_level: 2, max_level: 3 } },
    heading_anchors: { enabled: true, settings: { symbol: '#', levels: [1, 2, 3, 4] } },
    code_highlighting: { enabled: true, settings: { languages: [] } },
  },
  integrations: { default_webhook_events: [], notification_url: null, notification_events: [] },
};

export const isConfigSection = (name: string): name is ConfigSectionName => Object.prototype.hasOwnProperty.call(CONFIG_SECTIONS, name);

/** `docs.config.changed`: a section changed (written through the docs outbox with the change). */
export interface ConfigChangedEvent {
  section: ConfigSectionName;
  version: number;
  value: unknown;
  at: string;
}
export const CONFIG_CHANGED_SUBJECT = 'docs.config.changed';
