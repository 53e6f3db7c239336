import { AppError } from '@tollgate/kit';
import type { AdmissionRepo } from '../repo/admission-repo';

export const MAX_LEASE_BATCH = 1_000;
const MAX_LEASE_SECONDS = 86_400;

/** Extends the leases of admissions whose executions are still under way (asked by the tasks service). */
export async function renewAdmissions(deps: { admissions: AdmissionRepo }, taskNumbers: string[], leaseSeconds: number): Promise<number> {
  if (taskNumbers.length > MAX_LEASE_BATCH) throw AppError.field(['task_numbers'], `at most ${MAX_LEASE_BATCH} per call`, 'size');
  if (!(leaseSeconds >= 1 && leaseSeconds <= MAX_LEASE_SECONDS)) throw AppError.field(['lease_seconds'], `between 1 and ${MAX_LEASE_SECONDS}`, 'size');
  return deps.admissions.renew([...new Set(taskNumbers)], leaseSeconds);
}

/** Open admissions whose lease ran out: the tasks service settles each by its task's outcome (or renews it). */
export async function expiredAdmissions(deps: { admissions: AdmissionRepo }, limit: number): Promise<string[]> {
  return deps.admissions.expired(Math.min(Math.max(1, limit || 100), MAX_LEASE_BATCH));
}
