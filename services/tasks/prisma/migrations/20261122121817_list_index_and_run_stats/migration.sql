-- CreateTable
CREATE TABLE "app_run_stats" (
    "app_id" TEXT NOT NULL,
    "ewma_ms" DOUBLE PRECISION NOT NULL,
    "samples" INTEGER NOT NULL DEFAULT 0,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "app_run_stats_pkey" PRIMARY KEY ("app_id")
);

-- CreateIndex
CREATE INDEX "tasks_account_id_id_idx" ON "tasks"("account_id", "id");
