type Json = Record<string, unknown>;

/** A table's secondary indexes as its CreateTable named them: what each one's items carry. */
export interface IndexDefinition {
  readonly name: string;
  /** The index's own key attributes: an item without its partition key is not in it. */
  readonly keys: readonly string[];
  /** The attributes an index item carries besides its keys and the table's; null: every one (ALL). */
  readonly projected: readonly string[] | null;
}

export interface TableDefinition {
  readonly keys: readonly string[];
  readonly indexes: readonly IndexDefinition[];
}

export type TableIndexes = Map<string, TableDefinition>;

/** What a CreateTable request says of the table's keys and secondary indexes. */
export const tableDefinitionOf = (request: Json): TableDefinition => {
  const keysOf = (schema: unknown) => ((schema ?? []) as Json[]).map((key) => String(key.AttributeName));
  const indexes = [
    ...((request.GlobalSecondaryIndexes ?? []) as Json[]),
    ...((request.LocalSecondaryIndexes ?? []) as Json[]),
  ];
  return {
    keys: keysOf(request.KeySchema),
    indexes: indexes.map((index) => {
      const projection = (index.Projection ?? {}) as Json;
      return {
        name: String(index.IndexName),
        keys: keysOf(index.KeySchema),
        projected:
          projection.ProjectionType === 'ALL' ? null : ((projection.NonKeyAttributes ?? []) as unknown[]).map(String),
      };
    }),
  };
};
