-- AlterTable
ALTER TABLE "accounts" ADD COLUMN     "system_role" TEXT;

-- CreateIndex
CREATE UNIQUE INDEX "accounts_system_role_key" ON "accounts"("system_role");
