-- CreateIndex
CREATE INDEX IF NOT EXISTS "tasks_waiting_queue_idx" ON "tasks"("id") WHERE (mode = 'async' AND status = '等待中');
