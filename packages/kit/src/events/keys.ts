/** `keys.changed.<id>`: a key or an account changed; caches drop it at once. */
export interface KeyChangedEvent {
  entity: 'key' | 'account';
  id: number;
  account_id: number;
  at: string;
}

export const keyChangedSubject = (entity: 'key' | 'account', id: number) => `keys.changed.${entity}.${id}`;
export const KEY_CHANGED_SUBJECTS = 'keys.changed.>';
