import type { ChatMessage } from '../domain/types';
import type { TasksDb } from './prisma-types';

export interface ConversationRecord {
  id: string;
  accountId: number;
  appId: string;
}

/** Chatbot conversations and their turns in PostgreSQL. */
export class ConversationRepo {
  constructor(private readonly db: TasksDb) {}

  async find(id: string): Promise<ConversationRecord | null> {
    return this.db.conversation.findUnique({ where: { id }, select: { id: true, accountId: true, appId: true } });
  }

  /** The conversation, created for this account and app when it does not exist yet (a retried task finds the one it created). */
  async ensure(conversation: ConversationRecord): Promise<ConversationRecord> {
    await this.db.conversation.createMany({ data: [conversation], skipDuplicates: true });
    return (await this.find(conversation.id))!;
  }

  /** The last `limit` turns, oldest first. */
  async history(id: string, limit: number): Promise<ChatMessage[]> {
    if (limit <= 0) return [];
    const rows = await this.db.conversationMessage.findMany({ where: { conversationId: id }, orderBy: { id: 'desc' }, take: limit, select: { role: true, content: true } });
    return rows.reverse().map((r) => ({ role: r.role as ChatMessage['role'], content: r.content }));
  }

  async append(id: string, taskNumber: string, messages: ChatMessage[]): Promise<void> {
    await this.db.$transaction([
      this.db.conversationMessage.createMany({ data: messages.map((m) => ({ conversationId: id, role: m.role, content: m.content, taskNumber })) }),
      this.db.conversation.update({ where: { id }, data: { updatedAt: new Date() } }),
    ]);
  }
}
