-- AlterTable
ALTER TABLE "key_usage" ADD COLUMN     "quota_managed" BOOLEAN NOT NULL DEFAULT false;
