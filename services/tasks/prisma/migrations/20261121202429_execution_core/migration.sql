-- DropIndex
DROP INDEX "tasks_status_lease_expires_at_idx";

-- AlterTable
ALTER TABLE "apps" ADD COLUMN     "api_key" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "base_url" TEXT NOT NULL DEFAULT '',
ADD COLUMN     "reporter_token_hash" TEXT,
ADD COLUMN     "timeout_ms" INTEGER NOT NULL DEFAULT 0;

-- AlterTable
ALTER TABLE "tasks" ADD COLUMN     "mode" TEXT NOT NULL DEFAULT 'async',
ADD COLUMN     "usage" JSONB;

-- CreateTable
CREATE TABLE "task_events" (
    "id" BIGSERIAL NOT NULL,
    "task_number" TEXT NOT NULL,
    "subject" TEXT NOT NULL,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "published_at" TIMESTAMP(3),

    CONSTRAINT "task_events_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "task_events_published_at_id_idx" ON "task_events"("published_at", "id");

-- CreateIndex
CREATE UNIQUE INDEX "apps_reporter_token_hash_key" ON "apps"("reporter_token_hash");

-- CreateIndex
CREATE INDEX "tasks_mode_status_lease_expires_at_idx" ON "tasks"("mode", "status", "lease_expires_at");
