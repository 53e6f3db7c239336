-- CreateIndex
CREATE INDEX "documents_updated_at_id_idx" ON "documents"("updated_at", "id");
