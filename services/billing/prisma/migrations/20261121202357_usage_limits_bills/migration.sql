-- AlterTable
ALTER TABLE "key_usage" ADD COLUMN     "in_flight" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "rpm_count" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "rpm_window" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updated_at" SET DEFAULT CURRENT_TIMESTAMP,
ALTER COLUMN "updated_at" SET DATA TYPE TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "ledger_entries" ALTER COLUMN "created_at" SET DATA TYPE TIMESTAMPTZ(3);

-- AlterTable
ALTER TABLE "prices" ADD COLUMN     "updated_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP;

-- CreateTable
CREATE TABLE "admissions" (
    "task_number" TEXT NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "basis" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'open',
    "reserved" DECIMAL(20,6) NOT NULL,
    "price_fixed" DECIMAL(20,6) NOT NULL,
    "price_input_token" DECIMAL(20,6) NOT NULL,
    "price_output_token" DECIMAL(20,6) NOT NULL,
    "price_second" DECIMAL(20,6) NOT NULL,
    "charged" DECIMAL(20,6),
    "admitted_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settled_at" TIMESTAMPTZ(3),

    CONSTRAINT "admissions_pkey" PRIMARY KEY ("task_number")
);

-- CreateTable
CREATE TABLE "monthly_bills" (
    "account_id" INTEGER NOT NULL,
    "month" TEXT NOT NULL,
    "total" DECIMAL(20,6) NOT NULL,
    "lines" JSONB NOT NULL,
    "frozen_at" TIMESTAMPTZ(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "monthly_bills_pkey" PRIMARY KEY ("account_id","month")
);

-- CreateTable
CREATE TABLE "rate_windows" (
    "bucket" TEXT NOT NULL,
    "window_start" TIMESTAMPTZ(3) NOT NULL,
    "count" INTEGER NOT NULL DEFAULT 0,

    CONSTRAINT "rate_windows_pkey" PRIMARY KEY ("bucket","window_start")
);

-- CreateIndex
CREATE INDEX "admissions_state_admitted_at_idx" ON "admissions"("state", "admitted_at");

-- CreateIndex
CREATE INDEX "rate_windows_window_start_idx" ON "rate_windows"("window_start");

-- CreateIndex
CREATE INDEX "key_usage_account_id_idx" ON "key_usage"("account_id");

-- CreateIndex
CREATE INDEX "ledger_entries_account_id_created_at_idx" ON "ledger_entries"("account_id", "created_at");

-- CreateIndex
CREATE INDEX "ledger_entries_api_key_id_created_at_idx" ON "ledger_entries"("api_key_id", "created_at");

-- Default prices (spec: 1.0 per execution for the four kinds; the OpenAI-compatible passthrough per request)
INSERT INTO "prices" ("kind", "basis", "unit_price") VALUES
    ('agent', 'per_execution', 1.0),
    ('workflow', 'per_execution', 1.0),
    ('aiapp', 'per_execution', 1.0),
    ('chatbot', 'per_execution', 1.0),
    ('passthrough', 'per_request', 1.0)
ON CONFLICT ("kind", "basis") DO NOTHING;
