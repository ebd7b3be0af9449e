// Drafts in IndexedDB: what the person pasted and the form's values, saved on every change,
// restored after a reload, a closed tab or a crashed worker. Nothing leaves the device.
import { openDB, type DBSchema, type IDBPDatabase } from 'idb';
import type { FormDefinition } from './forms.ts';

/** One form's draft. */
export interface Draft {
  readonly formId: string;
  readonly pasted: string;
  readonly value: unknown;
  readonly updatedAt: number;
}

interface FormsDb extends DBSchema {
  drafts: { key: string; value: Draft };
  forms: { key: string; value: FormDefinition };
  settings: { key: string; value: { key: string; value: string } };
}

let database: Promise<IDBPDatabase<FormsDb>> | null = null;
const db = (): Promise<IDBPDatabase<FormsDb>> =>
  (database ??= openDB<FormsDb>('sieve-forms', 1, {
    upgrade(d) {
      d.createObjectStore('drafts', { keyPath: 'formId' });
      d.createObjectStore('forms', { keyPath: 'id' });
      d.createObjectStore('settings', { keyPath: 'key' });
    },
  }));

export async function saveDraft(draft: Draft): Promise<void> {
  await (await db()).put('drafts', draft);
}

export async function loadDraft(formId: string): Promise<Draft | undefined> {
  return (await db()).get('drafts', formId);
}

export async function saveCustomForm(form: FormDefinition): Promise<void> {
  await (await db()).put('forms', form);
}

export async function customForms(): Promise<FormDefinition[]> {
  return (await db()).getAll('forms');
}

export async function setSetting(key: string, value: string): Promise<void> {
  await (await db()).put('settings', { key, value });
}

export async function getSetting(key: string): Promise<string | undefined> {
  return (await (await db()).get('settings', key))?.value;
}
