-- AlterTable
ALTER TABLE "revisions" ADD COLUMN     "status" TEXT;
