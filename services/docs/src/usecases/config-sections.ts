import { AppError, CONFIG_DEFAULTS, CONFIG_SECTIONS, isConfigSection, zodIssues, type ConfigSectionName } from '@tollgate/kit';
import type { Actor } from '../domain/document';
import type { ConfigRepo, ConfigRow } from '../site/config-repo';

export interface SectionView {
  section: ConfigSectionName;
  value: unknown;
  version: number;
  updatedBy: number;
  updatedAt: Date | null;
}

function known(section: string): ConfigSectionName {
  if (!isConfigSection(section)) throw AppError.notFound(`no configuration section ${section}; sections: ${Object.keys(CONFIG_SECTIONS).join(', ')}`);
  return section;
}

const view = (section: ConfigSectionName, row: ConfigRow | null): SectionView =>
  row ? { section, value: row.value, version: row.version, updatedBy: row.updatedBy, updatedAt: row.updatedAt } : { section, value: CONFIG_DEFAULTS[section], version: 0, updatedBy: 0, updatedAt: null };

/** A section as stored, or its defaults at version 0 when never written. */
export async function getConfigSection(repo: ConfigRepo, section: string): Promise<SectionView> {
  const name = known(section);
  return view(name, await repo.find(name));
}

/** Replaces a section (admins only) after validating it against the section's schema. */
export async function putConfigSection(repo: ConfigRepo, actor: Actor, section: string, value: unknown, expectedVersion: number): Promise<SectionView> {
  const name = known(section);
  if (!actor.isAdmin) throw AppError.forbidden('changing the configuration needs the admin permission');
  const parsed = CONFIG_SECTIONS[name].safeParse(value);
  if (!parsed.success) {
    const issues = zodIssues(parsed.error, ['body']);
    throw AppError.invalid(issues, issues.map((i) => `${i.loc.join('.')}: ${i.msg}`).join('; '));
  }
  return view(name, await repo.put(name, parsed.data, expectedVersion, actor.accountId));
}

export async function configHistory(repo: ConfigRepo, section: string, page: number, pageSize: number) {
  const name = known(section);
  const { rows, total } = await repo.history(name, (page - 1) * pageSize, pageSize);
  return { entries: rows.map((r) => view(name, r)), total };
}
