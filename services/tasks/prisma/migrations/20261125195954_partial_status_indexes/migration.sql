-- DropIndex
DROP INDEX "tasks_account_id_idempotency_key_key";

-- DropIndex
DROP INDEX "tasks_mode_status_lease_expires_at_idx";

-- CreateIndex
CREATE INDEX "tasks_running_lease_idx" ON "tasks"("mode", "lease_expires_at") WHERE (status = '执行中');

-- CreateIndex
CREATE UNIQUE INDEX "tasks_account_id_idempotency_key_key" ON "tasks"("account_id", "idempotency_key") WHERE (idempotency_key IS NOT NULL);
