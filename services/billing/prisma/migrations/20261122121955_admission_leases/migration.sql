-- AlterTable
ALTER TABLE "admissions" ADD COLUMN     "lease_expires_at" TIMESTAMPTZ(3);

-- CreateIndex
CREATE INDEX "admissions_state_lease_expires_at_idx" ON "admissions"("state", "lease_expires_at");
