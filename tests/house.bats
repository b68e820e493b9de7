#!/usr/bin/env bats
# The house rules of user/ (docs/architecture.md, issue 25): folders by
# layer, nothing reaching up, no circles, no command in another's header,
# no file over 900 lines or function over 120, and architecture.md naming
# every file.  scripts/check-layers does the checking; these tests run it
# on the tree and on a copy with planted breaches, so a checker that
# passes everything fails here.

load lib

setup() {
	[ -x "$FSS_BIN" ] || skip "build ./fsyncscope first (make)"
	command -v nm >/dev/null || skip "no nm"
}

teardown() {
	[ -n "${HOUSE_TMP:-}" ] && rm -rf "$HOUSE_TMP"
	true
}

@test "house: user/ keeps its layers, no circles, no file or function too long" {
	run "$FSS_ROOT/scripts/check-layers"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ "$output" == "house: ok ("*"no circles)" ]]
	# folders, not a flat tree: at most main.c at the top
	[ "$(find "$FSS_ROOT/user" -maxdepth 1 -name '*.[ch]' | wc -l)" -le 2 ]
	[ "$(find "$FSS_ROOT/user" -mindepth 1 -type d | wc -l)" -ge 6 ]
}

# A copy of user/ and its objects (mtimes kept, so none is stale).
house_copy() {
	HOUSE_TMP="$(mktemp -d /tmp/fsyncscope-house.XXXXXX)"
	mkdir -p "$HOUSE_TMP/scripts" "$HOUSE_TMP/build"
	cp -a "$FSS_ROOT/user" "$HOUSE_TMP/user"
	cp -a "$FSS_BUILD/user" "$HOUSE_TMP/build/user"
	cp -a "$FSS_ROOT/scripts/check-layers" "$HOUSE_TMP/scripts/"
}

@test "house: planted breaches are each caught (include up, call up, circle, command header, sizes)" {
	house_copy
	local u="$HOUSE_TMP/user" b="$HOUSE_TMP/build/user"
	# an include from lib/ of a command header
	printf '#include "cmd/cli.h"\n' >> "$u/lib/fmt.c"
	# a call from sys/ up into the renderers, and a circle between two
	# lib files, compiled as objects the checker reads
	cat > "$u/sys/planted.c" <<'C'
int fss_render_text(void);
int planted_up(void) { return fss_render_text(); }
C
	cat > "$u/lib/planted_a.c" <<'C'
int planted_b(void);
int planted_a(void) { return planted_b(); }
C
	cat > "$u/lib/planted_b.c" <<'C'
int planted_a(void);
int planted_b(void) { return planted_a(); }
C
	# a command reaching into another command's header
	printf '#include "cmd/run/run_int.h"\n' >> "$u/cmd/diff.c"
	# a 901-line file and a 121-line function
	{ printf 'int planted_long(void)\n{\n'
	  for i in $(seq 121); do printf '\t(void)0;\n'; done
	  printf '\treturn 0;\n}\n'
	  for i in $(seq 800); do printf '/* pad */\n'; done; } > "$u/lib/planted_long.c"
	for f in sys/planted lib/planted_a lib/planted_b lib/planted_long; do
		cc -c "$u/$f.c" -o "$b/$f.o"
	done
	touch "$b/lib/fmt.o" "$b/cmd/diff.o"
	run "$HOUSE_TMP/scripts/check-layers" "$HOUSE_TMP"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ "$output" == *"lib/fmt.c:"*"includes cmd/cli.h, a layer above (lib < cmd)"* ]]
	[[ "$output" == *"sys/planted.c: calls fss_render_text in render/text/out_text.c, a layer above (sys < render)"* ]]
	[[ "$output" == *"circle of 2 files calling each other: lib/planted_a.c lib/planted_b.c"* ]]
	[[ "$output" == *"cmd/diff.c:"*"includes cmd/run/run_int.h, another command's header"* ]]
	[[ "$output" == *"lib/planted_long.c: 925 lines (limit 900)"* ]]
	[[ "$output" == *"lib/planted_long.c:2: planted_long has 122 lines (limit 120)"* ]]
	[[ "$output" != *"house: ok"* ]]
}

@test "house: docs/architecture.md names every file of user/" {
	local f missing=""
	while read -r f; do
		grep -qF "\`$f\`" "$FSS_ROOT/docs/architecture.md" ||
			[[ "$f" == *.h ]] || missing="$missing $f"
	done < <(cd "$FSS_ROOT/user" && find . -name '*.[ch]' | sed 's#^\./##' | sort)
	[ -z "$missing" ] || { echo "not in docs/architecture.md:$missing" >&2; false; }
	# and every folder of the tree is in its table
	while read -r f; do
		grep -qF "\`$f/" "$FSS_ROOT/docs/architecture.md" ||
			{ echo "folder $f/ not in docs/architecture.md" >&2; false; }
	done < <(cd "$FSS_ROOT/user" && find . -mindepth 1 -maxdepth 1 -type d | sed 's#^\./##' | sort)
}
