package seed

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// A bulk load writes a table's rows before its indexes: PostgreSQL keeps a btree or GIN
// index row by row in random order far more slowly than it builds one from sorted rows
// (at 4M posts the seed spent most of its 27 minutes keeping indexes).

// seedIndex is an index dropped for a load and built again after it.
type seedIndex struct {
	table, name string
	def         string // CREATE INDEX …, or the constraint's definition when constraint is set
	constraint  bool   // a primary key or unique constraint, added again as a constraint
}

// dropIndexes drops the indexes of tables that tx may drop and that nothing else needs
// while the rows arrive: indexes of tables the role owns, not referenced by a foreign key
// (those stay; they are the ids, appended in order) nor backing an exclusion constraint.
// It returns them for buildIndexes, which tx must run before it commits.
func dropIndexes(ctx context.Context, tx pgx.Tx, tables ...string) ([]seedIndex, error) {
	rows, err := tx.Query(ctx, `
		SELECT t.relname::text, i.indexrelid::regclass::text,
		       coalesce(pg_get_constraintdef(c.oid), pg_get_indexdef(i.indexrelid)), c.oid IS NOT NULL
		  FROM pg_index i
		  JOIN pg_class t ON t.oid = i.indrelid
		  LEFT JOIN pg_constraint c ON c.conindid = i.indexrelid AND c.conrelid = i.indrelid AND c.contype IN ('p', 'u')
		 WHERE i.indrelid = ANY ($1::text[]::regclass[])
		   AND pg_has_role(t.relowner, 'USAGE')
		   AND NOT EXISTS (SELECT 1 FROM pg_constraint o WHERE o.conindid = i.indexrelid AND o.contype NOT IN ('p', 'u'))
		 ORDER BY 1, 2`, tables)
	if err != nil {
		return nil, fmt.Errorf("seed: list indexes: %w", err)
	}
	indexes, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (seedIndex, error) {
		var x seedIndex
		return x, r.Scan(&x.table, &x.name, &x.def, &x.constraint)
	})
	if err != nil {
		return nil, fmt.Errorf("seed: list indexes: %w", err)
	}
	for _, x := range indexes {
		drop := "DROP INDEX " + x.name
		if x.constraint {
			drop = "ALTER TABLE " + pgx.Identifier{x.table}.Sanitize() + " DROP CONSTRAINT " + pgx.Identifier{x.name}.Sanitize()
		}
		if _, err := tx.Exec(ctx, drop); err != nil {
			return nil, fmt.Errorf("seed: drop index %s: %w", x.name, err)
		}
	}
	return indexes, nil
}

// buildIndexes builds the indexes dropIndexes dropped, as their definitions say, with the
// memory to sort each in one pass (the server's parallel maintenance workers help).
func buildIndexes(ctx context.Context, tx pgx.Tx, indexes []seedIndex, progress func(done, total int)) error {
	if len(indexes) == 0 {
		return nil
	}
	progress(0, len(indexes))
	if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '1GB'"); err != nil {
		return fmt.Errorf("seed: index memory: %w", err)
	}
	for i, x := range indexes {
		build := x.def
		if x.constraint {
			build = "ALTER TABLE " + pgx.Identifier{x.table}.Sanitize() + " ADD CONSTRAINT " + pgx.Identifier{x.name}.Sanitize() + " " + x.def
		}
		if _, err := tx.Exec(ctx, build); err != nil {
			return fmt.Errorf("seed: build index %s: %w", x.name, err)
		}
		progress(i+1, len(indexes))
	}
	return nil
}
