# fsyncscope - explain why a sync is slow.
# `make` builds ./fsyncscope; `make run` installs the build packages only,
# builds and runs the default workload; `make test` installs every package
# (build, package, tests: servers included), builds, runs the bats suites;
# `make deb` builds build/fsyncscope_VERSION_ARCH.deb; `make print-deps`
# shows the lists.  V=1 shows the commands.

OUTPUT    ?= build
PREFIX    ?= /usr/local
DESTDIR   ?=
CLANG     ?= clang
BPFTOOL   ?= bpftool
CC        ?= cc
PKG_CONFIG ?= pkg-config
ARCH      := $(shell uname -m | sed 's/x86_64/x86/' | sed 's/aarch64/arm64/')
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
# The binary; `make check-asan` builds a sanitized one under build/asan.
BIN       ?= fsyncscope
# Sanitizer flags added to every user-space compile and link (check-asan).
SAN_FLAGS ?=

ifeq ($(V),1)
Q =
msg =
else
Q = @
msg = @printf '  %-8s %s\n' "$(1)" "$(2)";
endif

.DELETE_ON_ERROR:
.SECONDARY:
.DEFAULT_GOAL := all

# Debian 12 packages by purpose, one reason each in README "Dependencies".
# Build and run ./fsyncscope: all `make run` installs (no server, no test
# tool: it may be run on a production database host).
DEB_BUILD := clang llvm bpftool libbpf-dev libelf-dev zlib1g-dev \
	libjson-c-dev libmount-dev libnvme-dev libpq-dev libmariadb-dev \
	libmicrohttpd-dev libgnutls28-dev libyaml-dev libcap-ng-dev \
	libcrypt-dev liburing-dev pkg-config make gcc libc6-dev
# `make deb`: dpkg-shlibdeps computes the package's Depends.
DEB_PKG   := dpkg-dev
# The tests only (`make test`, `make vmtest`): tools, fixtures, and the
# servers fsyncscope is checked against.
DEB_TEST  := bats jq e2fsprogs xfsprogs btrfs-progs util-linux fdisk python3 \
	libfuse3-dev fuse3 \
	postgresql-15 mariadb-server fio bpftrace kmod procps psmisc time bc \
	chromium python3-venv sqlite3 strace prometheus prometheus-node-exporter \
	curl iproute2 systemd openssl libclang-rt-14-dev lintian debootstrap \
	libseccomp-dev
DEB_ALL   := $(DEB_BUILD) $(DEB_PKG) $(DEB_TEST)

LIBS_PC   := libbpf json-c mount libnvme libpq libmariadb liburing \
	libmicrohttpd gnutls yaml-0.1 libcap-ng libcrypt
CFLAGS    ?= -g -O2
CFLAGS    += -Wall -Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-std=gnu11 -D_GNU_SOURCE -MMD -MP -I$(OUTPUT) -Iuser -Ibpf \
	$(shell $(PKG_CONFIG) --cflags-only-I libpq libmariadb 2>/dev/null) \
	$(SAN_FLAGS)
LDLIBS_OTHER := -lelf -lz -lpthread -lm
LDLIBS    += $(shell $(PKG_CONFIG) --libs $(LIBS_PC) 2>/dev/null) $(LDLIBS_OTHER)
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -MMD -MP \
	-I$(OUTPUT) -Ibpf -I/usr/include/$(shell uname -m)-linux-gnu \
	-Wall -Wno-unused-function

BPF_SRCS  := $(wildcard bpf/*.bpf.c)
BPF_OBJS  := $(patsubst bpf/%.bpf.c,$(OUTPUT)/bpf/%.bpf.o,$(BPF_SRCS))
# Programs linked into the main skeleton (probe.bpf.c is a separate one).
MAIN_BPF_OBJS := $(filter-out $(OUTPUT)/bpf/probe.bpf.o,$(BPF_OBJS))
USER_SRCS := $(shell find user -name '*.c' | LC_ALL=C sort)
USER_OBJS := $(patsubst user/%.c,$(OUTPUT)/user/%.o,$(USER_SRCS))
SKELS     := $(OUTPUT)/fsyncscope.skel.h $(OUTPUT)/probe.skel.h

# The attribution engine (pure C; unit tested without BPF).
BLAME_SRCS := user/engine/blame/blame.c user/engine/blame/blame_sync.c user/engine/blame/blame_coal.c user/engine/blame/blame_xfs.c user/engine/blame/blame_store.c \
	      user/doc/blame_json.c user/lib/cgpath.c user/lib/comm.c user/engine/blame/comms.c
ATTR_SRCS := user/engine/attr/attr.c user/engine/attr/attr_rq.c user/engine/attr/attr_paint.c user/engine/attr/attr_detail.c user/engine/attr/attr_jnl.c \
	user/engine/attr/tidx.c user/lib/phase.c

# Pure-C units tested without BPF.
UNIT_TESTS := $(OUTPUT)/tests/test_attr $(OUTPUT)/tests/test_attr_stress \
	$(OUTPUT)/tests/test_clock \
	$(OUTPUT)/tests/test_report $(OUTPUT)/tests/test_verdict \
	$(OUTPUT)/tests/test_hist $(OUTPUT)/tests/test_metrics \
	$(OUTPUT)/tests/test_dbview $(OUTPUT)/tests/test_blame \
	$(OUTPUT)/tests/test_blame_fr \
	$(OUTPUT)/tests/test_lib $(OUTPUT)/tests/test_summ $(OUTPUT)/tests/test_fold \
	$(OUTPUT)/tests/test_findings
FIXTURES   := $(OUTPUT)/tests/delayfs $(OUTPUT)/tests/passfs
HELPERS    := $(OUTPUT)/tests/syncer $(OUTPUT)/tests/blamer

# Python packages from PyPI for the tests, in a venv under build/ (Debian's
# python3 is externally managed): Playwright drives Debian's chromium.
PLAYWRIGHT_VERSION ?= 1.65.2
PY_TEST   := playwright==$(PLAYWRIGHT_VERSION)
PYENV     := $(OUTPUT)/pyenv

.PHONY: all deps deps-build deps-deb print-deps pydeps run test unit vmtest \
	vmtest-matrix \
	install deb clean bench fuzz fuzz-build check-asan

# Hardening (docs/hardening.md).  libFuzzer targets (tests/fuzz/) over the
# document reader and every renderer, the --events reader and the option
# parsers, the exporter's HTTP request handling and its web config parser,
# built with clang under
# ASan+UBSan in $(OUTPUT)/fuzz; `make fuzz
# FUZZ_SECS=N` replays tests/fuzz/corpus/TARGET and fuzzes each target N
# seconds (new inputs go to $(OUTPUT)/fuzz/corpus, crashes to
# $(OUTPUT)/fuzz/crash-*).  `make check-asan` builds fsyncscope and the unit
# tests with ASan+UBSan in $(OUTPUT)/asan (BPF objects as usual) and runs
# the unit tests and ASAN_BATS with leak detection on.
FUZZ_TARGETS := doc events parse webcfg web
FUZZ_SECS ?= 60
FUZZ_CC   ?= clang
SANITIZE  := address,undefined -fno-sanitize-recover=undefined \
	-fno-omit-frame-pointer
FUZZ_OBJS := $(filter-out $(OUTPUT)/user/main.o,$(USER_OBJS))
ASAN_BATS ?= tests/asan/smoke.bats tests/baddocs.bats
# make test: each fuzz target this long after its corpus replay; fewer
# mutants per seed in baddocs.bats under the sanitizers.
FUZZ_CI_SECS ?= 30
ASAN_MUTANTS ?= 6
SAN_ENV   := ASAN_OPTIONS=detect_leaks=1:exitcode=86:strict_string_checks=1 \
	UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1:exitcode=87
all: $(BIN) $(UNIT_TESTS) $(FIXTURES) $(HELPERS)

# $(call apt_install,PACKAGES,TARGET): apt-get installs those of PACKAGES
# that dpkg does not list as installed; nothing (no network) when none is.
define apt_install
	$(Q)missing=$$(for p in $(1); do dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | grep -q '^install ok installed' || echo $$p; done); \
	if [ -n "$$missing" ]; then \
		echo "  DEPS     installing:" $$missing; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing >/dev/null || \
		{ echo "make $(2): apt-get install failed for: $$missing" >&2; exit 1; }; \
	fi
endef

deps-build:
	$(call apt_install,$(DEB_BUILD),deps-build)

deps-deb:
	$(call apt_install,$(DEB_BUILD) $(DEB_PKG),deps-deb)

deps:
	$(call apt_install,$(DEB_ALL),deps)

# What each target installs, and the libraries the binary's build asks
# pkg-config and the linker for (tests/deps.bats checks them against dpkg).
print-deps:
	@echo "build: $(strip $(DEB_BUILD))"
	@echo "deb: $(strip $(DEB_PKG))"
	@echo "test: $(strip $(DEB_TEST))"
	@echo "pkg-config: $(LIBS_PC)"
	@echo "pkg-config-test: fuse3"
	@echo "ldlibs: $(filter -l%,$(LDLIBS_OTHER))"

pydeps: deps
	$(Q)if ! $(PYENV)/bin/python -c 'import playwright' 2>/dev/null; then \
		echo "  PYDEPS   $(PY_TEST) in $(PYENV)"; \
		rm -rf $(PYENV) && /usr/bin/python3 -m venv $(PYENV) && \
		$(PYENV)/bin/pip install -q --disable-pip-version-check $(PY_TEST) || \
		{ echo "make pydeps: pip install $(PY_TEST) failed" >&2; exit 1; }; \
	fi

$(OUTPUT) $(OUTPUT)/bpf $(OUTPUT)/user $(OUTPUT)/tests:
	$(Q)mkdir -p $@

$(OUTPUT)/vmlinux.h: | $(OUTPUT)
	$(call msg,GEN,$@)
	$(Q)$(BPFTOOL) btf dump file $(VMLINUX_BTF) format c > $@

$(OUTPUT)/bpf/%.bpf.o: bpf/%.bpf.c $(OUTPUT)/vmlinux.h | $(OUTPUT)/bpf
	$(call msg,BPF,$@)
	$(Q)$(CLANG) $(BPF_CFLAGS) -c $< -o $@

$(OUTPUT)/fsyncscope.bpf.o: $(MAIN_BPF_OBJS)
	$(call msg,LINK,$@)
	$(Q)$(BPFTOOL) gen object $@ $^

$(OUTPUT)/probe.bpf.o: $(OUTPUT)/bpf/probe.bpf.o
	$(Q)cp $< $@

$(OUTPUT)/%.skel.h: $(OUTPUT)/%.bpf.o
	$(call msg,GEN-SKEL,$@)
	$(Q)$(BPFTOOL) gen skeleton $< name $(subst .skel.h,,$(notdir $@))_bpf > $@

$(OUTPUT)/user/%.o: user/%.c | $(OUTPUT)/user $(SKELS)
	$(call msg,CC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(USER_OBJS)
	$(call msg,BINARY,$@)
	$(Q)$(CC) $(CFLAGS) $^ $(LDLIBS) -o $@

# test_attr, test_attr_stress and test_report: one set of sources (the
# engine, and the report it feeds)
ATTR_TEST_DEPS := $(ATTR_SRCS) $(BLAME_SRCS) user/stats/collector.c user/stats/summ.c user/lib/hist.c user/doc/doc.c user/doc/doc_schema.c user/lib/fmt.c user/lib/order_ci.c user/lib/pctl.c user/render/text/out_text_breakdown.c tests/unit/tap.h
$(OUTPUT)/tests/test_attr_stress: tests/unit/test_attr_stress.c tests/unit/attr_fixture.h $(ATTR_TEST_DEPS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_report: tests/unit/test_report.c tests/unit/attr_fixture.h $(ATTR_TEST_DEPS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_clock: tests/unit/test_clock.c tests/unit/attr_fixture.h user/engine/attr/clock.c user/engine/attr/clock.h $(ATTR_TEST_DEPS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_attr: tests/unit/test_attr.c tests/unit/attr_fixture.h $(ATTR_TEST_DEPS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_verdict: tests/unit/test_verdict.c user/sys/verdict.c user/lib/order_ci.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c) -lm -o $@

$(OUTPUT)/tests/test_hist: tests/unit/test_hist.c user/lib/hist.c user/lib/stats.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c) -lm -o $@

$(OUTPUT)/tests/test_metrics: tests/unit/test_metrics.c user/exporter/metrics.c user/exporter/out_prom.c $(ATTR_SRCS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) -lpthread -lm -o $@

$(OUTPUT)/tests/test_dbview: tests/unit/test_dbview.c user/db/dbrole.c user/db/fileclass.c user/db/checkpoint.c user/db/dbview.c user/stats/live_agg.c user/render/text/out_text_db.c user/db/myroles.c user/lib/hist.c $(ATTR_SRCS) user/doc/doc.c user/doc/doc_schema.c user/lib/fmt.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c libmariadb) -lm -o $@

# The findings engine (pure C over documents; docs/findings.md).
FINDINGS_SRCS := $(wildcard user/findings/*.c)

$(OUTPUT)/tests/test_findings: tests/unit/test_findings.c $(FINDINGS_SRCS) user/doc/doc.c user/doc/doc_schema.c user/lib/fmt.c user/lib/phase.c user/render/text/out_text_findings.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c) -lm -o $@

$(OUTPUT)/tests/test_blame: tests/unit/test_blame.c $(BLAME_SRCS) $(ATTR_SRCS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_blame_fr: tests/unit/test_blame_fr.c $(BLAME_SRCS) $(ATTR_SRCS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c mount) -lm -o $@

$(OUTPUT)/tests/test_lib: tests/unit/test_lib.c user/lib/parse.c user/lib/comm.c user/lib/phase.c user/lib/fmt.c user/doc/doc.c user/doc/doc_schema.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c) -lm -o $@

$(OUTPUT)/tests/test_fold: tests/unit/test_fold.c user/engine/tracer/fold.c $(ATTR_SRCS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs libbpf) -lm -o $@

$(OUTPUT)/tests/test_summ: tests/unit/test_summ.c user/stats/summ.c user/doc/doc.c user/doc/doc_schema.c user/render/text/out_text_breakdown.c user/lib/fmt.c $(ATTR_SRCS) | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $(filter %.c,$^) $(shell $(PKG_CONFIG) --libs json-c) -lm -o $@

# the FUSE fixtures need a test package: say so instead of a missing header
need_fuse3 = $(Q)$(PKG_CONFIG) --exists fuse3 || \
	{ echo "make: $@ needs libfuse3-dev, a test package (make deps)" >&2; exit 1; }

$(OUTPUT)/tests/delayfs: tests/fixtures/delayfs.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(need_fuse3)
	$(Q)$(CC) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags fuse3) $< $(shell $(PKG_CONFIG) --libs fuse3) -lpthread -o $@

$(OUTPUT)/tests/passfs: tests/fixtures/passfs.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(need_fuse3)
	$(Q)$(CC) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags fuse3) $< $(shell $(PKG_CONFIG) --libs fuse3) -o $@

$(OUTPUT)/tests/syncer: tests/helpers/syncer.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/tests/blamer: tests/helpers/blamer.c | $(OUTPUT)/tests
	$(call msg,CC,$@)
	$(Q)$(CC) $(CFLAGS) $< -o $@

$(OUTPUT)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(FUZZ_OBJS)
	$(call msg,FUZZ,$@)
	$(Q)$(CC) $(CFLAGS) -Itests/fuzz -fsanitize=fuzzer $< $(FUZZ_OBJS) \
		$(LDLIBS) -o $@

fuzz-build: deps
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(OUTPUT)/fuzz CC=$(FUZZ_CC) \
		SAN_FLAGS="-fsanitize=fuzzer-no-link,$(SANITIZE)" \
		BIN=$(OUTPUT)/fuzz/fsyncscope \
		$(patsubst %,$(OUTPUT)/fuzz/fuzz_%,$(FUZZ_TARGETS))

# Per target: the longest input (documents are up to ~100 KB compact).
FUZZ_LEN_doc    := 131072
FUZZ_LEN_events := 65536
FUZZ_LEN_parse  := 512
FUZZ_LEN_webcfg := 4096
FUZZ_LEN_web    := 4096

fuzz: fuzz-build
	$(Q)i=0; for t in $(FUZZ_TARGETS); do i=$$((i + 1)); \
		d=$(OUTPUT)/fuzz; mkdir -p $$d/corpus/$$t; \
		case $$t in doc) n=$(FUZZ_LEN_doc);; events) n=$(FUZZ_LEN_events);; \
			webcfg|web) n=$(FUZZ_LEN_webcfg);; *) n=$(FUZZ_LEN_parse);; esac; \
		printf '  %-8s %s\n' FUZZ "$$t, $(FUZZ_SECS) s"; \
		$(SAN_ENV) $$d/fuzz_$$t -max_total_time=$(FUZZ_SECS) -max_len=$$n \
			-timeout=30 -rss_limit_mb=3072 -print_final_stats=1 \
			-artifact_prefix=$$d/crash-$$t- $$d/corpus/$$t \
			tests/fuzz/corpus/$$t > $$d/$$t.log 2>&1 || \
			{ tail -60 $$d/$$t.log; echo "not ok $$i fuzz $$t: crash," \
			  "input in $$d/crash-$$t-*"; exit 1; }; \
		echo "ok $$i fuzz $$t: $$(grep -E '^Done' $$d/$$t.log)"; \
	done

check-asan: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)$(MAKE) --no-print-directory OUTPUT=$(OUTPUT)/asan \
		SAN_FLAGS="-fsanitize=$(SANITIZE)" BIN=$(OUTPUT)/asan/fsyncscope \
		$(OUTPUT)/asan/fsyncscope \
		$(patsubst $(OUTPUT)/%,$(OUTPUT)/asan/%,$(UNIT_TESTS))
	$(Q)for t in $(patsubst $(OUTPUT)/%,$(OUTPUT)/asan/%,$(UNIT_TESTS)); do \
		$(SAN_ENV) $$t > $$t.log 2>&1 || { cat $$t.log; exit 1; }; \
		echo "  ASAN     $$t: $$(grep -c '^ok' $$t.log) ok"; \
	done
	$(Q)$(SAN_ENV) FSS_MUTANTS=$(ASAN_MUTANTS) \
		FSS_BIN=$(CURDIR)/$(OUTPUT)/asan/fsyncscope bats --tap $(ASAN_BATS)

unit: $(UNIT_TESTS)
	$(Q)for t in $(UNIT_TESTS); do $$t || exit 1; done

# The contract: one command sets up everything and runs the tests.
test: deps pydeps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)bats --tap tests/
	$(Q)$(MAKE) --no-print-directory check-asan
	$(Q)$(MAKE) --no-print-directory fuzz FUZZ_SECS=$(FUZZ_CI_SECS)

# Only what building and running need: no test tool, no server.
run: deps-build
	$(Q)$(MAKE) --no-print-directory fsyncscope
	./fsyncscope run $(RUN_ARGS)

# A Debian package of ./fsyncscope (scripts/mkdeb, docs/package.md).
deb: deps-deb
	$(Q)$(MAKE) --no-print-directory fsyncscope
	$(Q)scripts/mkdeb $(OUTPUT)

vmtest: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/vmtest $(VMTEST_ARGS)

# The kernel matrix (docs/kernels.md): the smoke set of tests/vm on each of
# VMTEST_KERNELS (scripts/vmtest-matrix fetches them into build/vm/kernels).
vmtest-matrix: deps
	$(Q)$(MAKE) --no-print-directory all
	$(Q)scripts/vmtest-matrix $(VMTEST_MATRIX_ARGS)

bench: all
	$(Q)scripts/bench-vs-pg_test_fsync
	$(Q)scripts/bench-overhead

install: fsyncscope
	$(Q)install -D -m 0755 fsyncscope $(DESTDIR)$(PREFIX)/sbin/fsyncscope
	$(Q)install -D -m 0644 docs/fsyncscope.8 $(DESTDIR)$(PREFIX)/share/man/man8/fsyncscope.8
	$(Q)install -D -m 0644 contrib/bash-completion/fsyncscope \
		$(DESTDIR)$(PREFIX)/share/bash-completion/completions/fsyncscope

clean:
	$(call msg,CLEAN)
	$(Q)rm -rf $(OUTPUT) fsyncscope

-include $(wildcard $(OUTPUT)/bpf/*.d $(OUTPUT)/tests/*.d) \
	$(shell find $(OUTPUT)/user -name '*.d' 2>/dev/null)
