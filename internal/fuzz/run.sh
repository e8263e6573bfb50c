#!/usr/bin/env bash
# run.sh FUZZTIME PKG:TARGET... — fuzz each target for FUZZTIME.
#
# Go 1.26's fuzz coordinator can fail a target with a bare "context deadline
# exceeded" when -fuzztime expires while a worker is mid-call (golang/go#75804,
# fixed in Go 1.27). That failure finds nothing: no input is written. A target
# that fails that way — the message, no "Failing input written", no panic — is
# run once more; any other failure, or the same one twice, fails the run.
set -uo pipefail
fuzztime=$1
shift
go=${GO:-go}

# only_deadline_race: the log's failure is that race and nothing else — no
# written input, no panic, no test's own error line (FILE.go:LINE:).
only_deadline_race() {
	grep -q 'context deadline exceeded' "$1" &&
		! grep -qE 'Failing input written|panic:|^[[:space:]]+[A-Za-z0-9_]+\.go:[0-9]+:' "$1"
}

for t in "$@"; do
	pkg=${t%%:*} name=${t##*:}
	for try in 1 2; do
		again=""; [ "$try" -eq 2 ] && again=" again"
		echo "== $name ($pkg)$again"
		log=$(mktemp)
		"$go" test -run '^$' -fuzz "^$name\$" -fuzztime "$fuzztime" "$pkg" 2>&1 | tee "$log"
		status=${PIPESTATUS[0]}
		if grep -q 'no fuzz tests to fuzz' "$log"; then
			# A target that moved: go test skips it without failing.
			echo "== $name is not a fuzz target of $pkg (moved? fix FUZZ_TARGETS in the Makefile)"
			rm -f "$log"
			exit 1
		fi
		if [ "$status" -eq 0 ]; then
			rm -f "$log"
			break
		fi
		if [ "$try" -eq 1 ] && only_deadline_race "$log"; then
			echo "== $name: the fuzz deadline race of Go 1.26 (golang/go#75804), nothing found; once more"
			rm -f "$log"
			continue
		fi
		rm -f "$log"
		exit 1
	done
done
