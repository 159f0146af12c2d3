import type { Kysely } from 'kysely';
import type { Engine } from '../dialects/dialect.js';

/** The registration fields' labels and choices' texts in the member pages' languages (`--field-texts`); none at first. */
export async function up(db: Kysely<any>, _engine: Engine): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('field_texts', 'text', (c) => c.notNull().defaultTo(''))
    .execute();
}
