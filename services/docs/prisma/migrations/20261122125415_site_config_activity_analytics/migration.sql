-- CreateTable
CREATE TABLE "config_sections" (
    "section" TEXT NOT NULL,
    "value" JSONB NOT NULL,
    "version" INTEGER NOT NULL,
    "updated_by" INTEGER NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "config_sections_pkey" PRIMARY KEY ("section")
);

-- CreateTable
CREATE TABLE "config_changes" (
    "id" SERIAL NOT NULL,
    "section" TEXT NOT NULL,
    "version" INTEGER NOT NULL,
    "value" JSONB NOT NULL,
    "changed_by" INTEGER NOT NULL,
    "changed_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "config_changes_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "activity" (
    "id" BIGSERIAL NOT NULL,
    "event_id" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "type" TEXT NOT NULL,
    "target_type" TEXT NOT NULL,
    "target_id" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "ip" TEXT NOT NULL,
    "user_agent" TEXT NOT NULL,
    "summary" TEXT NOT NULL,

    CONSTRAINT "activity_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "request_events" (
    "id" BIGSERIAL NOT NULL,
    "at" TIMESTAMP(3) NOT NULL,
    "account_id" INTEGER NOT NULL,
    "group" TEXT NOT NULL,
    "status" INTEGER NOT NULL,
    "latency_ms" DOUBLE PRECISION NOT NULL,
    "document_id" INTEGER NOT NULL,

    CONSTRAINT "request_events_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "request_batches" (
    "batch_id" TEXT NOT NULL,
    "received_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "request_batches_pkey" PRIMARY KEY ("batch_id")
);

-- CreateTable
CREATE TABLE "request_rollups" (
    "period_kind" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "period_start" TIMESTAMP(3) NOT NULL,
    "group" TEXT NOT NULL,
    "status_class" INTEGER NOT NULL,
    "count" INTEGER NOT NULL,
    "latency" INTEGER[],

    CONSTRAINT "request_rollups_pkey" PRIMARY KEY ("period_kind","account_id","period_start","group","status_class")
);

-- CreateTable
CREATE TABLE "event_rollups" (
    "metric" TEXT NOT NULL,
    "period_kind" TEXT NOT NULL,
    "account_id" INTEGER NOT NULL,
    "period_start" TIMESTAMP(3) NOT NULL,
    "dim" TEXT NOT NULL,
    "count" INTEGER NOT NULL,

    CONSTRAINT "event_rollups_pkey" PRIMARY KEY ("metric","period_kind","account_id","period_start","dim")
);

-- CreateIndex
CREATE UNIQUE INDEX "config_changes_section_version_key" ON "config_changes"("section", "version");

-- CreateIndex
CREATE UNIQUE INDEX "activity_event_id_key" ON "activity"("event_id");

-- CreateIndex
CREATE INDEX "activity_account_id_at_idx" ON "activity"("account_id", "at");

-- CreateIndex
CREATE INDEX "activity_at_idx" ON "activity"("at");

-- CreateIndex
CREATE INDEX "request_events_at_idx" ON "request_events"("at");

-- CreateIndex
CREATE INDEX "request_batches_received_at_idx" ON "request_batches"("received_at");

-- CreateIndex
CREATE INDEX "event_rollups_metric_period_kind_period_start_idx" ON "event_rollups"("metric", "period_kind", "period_start");
