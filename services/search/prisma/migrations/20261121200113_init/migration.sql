-- CreateTable
CREATE TABLE "search_queries" (
    "id" BIGSERIAL NOT NULL,
    "query" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "result_count" INTEGER NOT NULL,
    "latency_ms" INTEGER NOT NULL,
    "account_id" INTEGER,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "search_queries_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "indexed_documents" (
    "document_id" INTEGER NOT NULL,
    "version" INTEGER NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "indexed_documents_pkey" PRIMARY KEY ("document_id")
);

-- CreateIndex
CREATE INDEX "search_queries_created_at_idx" ON "search_queries"("created_at");
