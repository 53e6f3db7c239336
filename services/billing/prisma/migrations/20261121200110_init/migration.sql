-- CreateTable
CREATE TABLE "key_usage" (
    "api_key_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "quota" DECIMAL(20,6),
    "used_quota" DECIMAL(20,6) NOT NULL DEFAULT 0,
    "reserved" DECIMAL(20,6) NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "key_usage_pkey" PRIMARY KEY ("api_key_id")
);

-- CreateTable
CREATE TABLE "ledger_entries" (
    "id" BIGSERIAL NOT NULL,
    "api_key_id" INTEGER NOT NULL,
    "account_id" INTEGER NOT NULL,
    "kind" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "task_number" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "amount" DECIMAL(20,6) NOT NULL,
    "basis" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ledger_entries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "prices" (
    "kind" TEXT NOT NULL,
    "basis" TEXT NOT NULL,
    "unit_price" DECIMAL(20,6) NOT NULL,

    CONSTRAINT "prices_pkey" PRIMARY KEY ("kind","basis")
);

-- CreateIndex
CREATE UNIQUE INDEX "ledger_entries_task_number_type_key" ON "ledger_entries"("task_number", "type");
