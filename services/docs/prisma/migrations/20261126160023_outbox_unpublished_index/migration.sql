-- CreateIndex
CREATE INDEX "outbox_events_unpublished_idx" ON "outbox_events"("id") WHERE (published_at IS NULL);
