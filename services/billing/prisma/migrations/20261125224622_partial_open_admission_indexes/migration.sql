-- DropIndex
DROP INDEX "admissions_state_admitted_at_idx";

-- DropIndex
DROP INDEX "admissions_state_lease_expires_at_idx";

-- CreateIndex
CREATE INDEX "admissions_open_lease_idx" ON "admissions"("lease_expires_at") WHERE (state = 'open' AND lease_expires_at IS NOT NULL);

-- CreateIndex
CREATE INDEX "admissions_open_unleased_idx" ON "admissions"("admitted_at") WHERE (state = 'open' AND lease_expires_at IS NULL);
