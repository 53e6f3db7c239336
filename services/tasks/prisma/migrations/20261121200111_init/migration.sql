-- CreateTable
CREATE TABLE "apps" (
    "id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "owner_account_id" INTEGER,
    "provider" TEXT NOT NULL DEFAULT 'echo',
    "model" TEXT NOT NULL,
    "system_prompt" TEXT NOT NULL DEFAULT '',
    "settings" JSONB NOT NULL DEFAULT '{}',
    "public" BOOLEAN NOT NULL DEFAULT false,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "tasks" (
    "id" BIGSERIAL NOT NULL,
    "task_number" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "status" TEXT NOT NULL DEFAULT '等待中',
    "request" JSONB NOT NULL,
    "progress" JSONB,
    "result" JSONB,
    "comments" TEXT NOT NULL DEFAULT '',
    "idempotency_key" TEXT,
    "request_hash" TEXT,
    "lease_owner" TEXT,
    "lease_expires_at" TIMESTAMP(3),
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,
    "started_at" TIMESTAMP(3),
    "finished_at" TIMESTAMP(3),

    CONSTRAINT "tasks_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "tasks_task_number_key" ON "tasks"("task_number");

-- CreateIndex
CREATE INDEX "tasks_status_lease_expires_at_idx" ON "tasks"("status", "lease_expires_at");

-- CreateIndex
CREATE INDEX "tasks_account_id_created_at_idx" ON "tasks"("account_id", "created_at");

-- CreateIndex
CREATE UNIQUE INDEX "tasks_account_id_idempotency_key_key" ON "tasks"("account_id", "idempotency_key");
