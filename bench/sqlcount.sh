#!/bin/sh
# Counts the CPU instructions one SQL statement costs PostgreSQL, with callgrind in a
# single-user backend: repeatable on a shared machine where timings move by 2x from one minute
# to the next. Compares variants of a query (each in its own setup file) on the bench data.
#
#   bench/sqlcount.sh DATA_DIR DATABASE SETUP.sql 'STATEMENT;' [N]
#
# SETUP.sql runs first (a PREPARE, SETs; '--' comments are dropped, every ';' ends a
# statement), then STATEMENT 10 times, then in a second run N+10 times (N: 50); the
# difference over N is printed. The cluster of DATA_DIR must be stopped (single-user mode
# takes it whole); run as root, the backend runs as the data directory's owner. Needs
# valgrind.
set -eu
[ $# -ge 4 ] || { sed -n '2,12p' "$0" | cut -c3-; exit 2; }
data=$1 db=$2 setup=$3 stmt=$4 n=${5:-50}
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
owner=$(stat -c %U "$data")
work=$(mktemp -d)
chown "$owner" "$work"
trap 'rm -rf "$work"' EXIT

count() { # count REPEATS: the instructions of one backend running the setup and REPEATS statements
	# single-user mode (-j) ends a statement at a semicolon followed by an empty line
	sed 's/--.*$//' "$setup" | tr '\n' ' ' | sed 's/;[[:space:]]*/;\n\n/g' > "$work/in.sql"
	i=0
	while [ "$i" -lt "$1" ]; do printf '%s\n\n' "$stmt" >> "$work/in.sql"; i=$((i + 1)); done
	chmod 644 "$work/in.sql"
	runuser -u "$owner" -- valgrind --tool=callgrind --callgrind-out-file="$work/out.$1" \
		"$bin/postgres" --single -j -D "$data" "$db" < "$work/in.sql" > "$work/log.$1" 2>&1
	if grep -q ERROR "$work/log.$1"; then
		grep -A1 ERROR "$work/log.$1" >&2
		exit 1
	fi
	awk '/^summary:/ {print $2}' "$work/out.$1"
}

a=$(count 10)
b=$(count $((n + 10)))
echo "$(((b - a) / n)) instructions per statement"
