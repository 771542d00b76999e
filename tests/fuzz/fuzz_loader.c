/* fuzz_loader.c: the libFuzzer target for the whole loading path. The input bytes go
 * into a memfd and through load_trace (input sniffing, decompression, scanner, builder,
 * index), then through the summary and data-quality reports, the model dump, the index
 * queries and the lazy args reader (fuzz_model.h); index answers are checked against
 * src/index.h. The full oracle also loads the
 * file split in parts (TTRACE_PARTS), checks that both loads dump the same model (but for
 * the lines parts_may_differ names) and queries the index more; it runs on the inputs
 * fuzz_oracle_sampled picks (all of them in the replay). Any mismatch aborts. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "parsers/load.h"
#include "src/model.h"
#include "tests/fuzz/fuzz_model.h"
#include "tests/fuzz/fuzz_oracle.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Loads PATH in one piece (parts 0) or forced into that many parts; returns the dump. */
static char *load_and_exercise(const char *path, int parts, const struct fuzz_bounds *bd)
{
	struct load_options opt = { .progress = NULL, .progress_after = 0, .quiet = true, .problems = NULL };
	struct trace *t;
	char *dump;

	if (parts > 0) {
		char n[16];
		snprintf(n, sizeof n, "%d", parts);
		setenv("TTRACE_PARTS", n, 1);
	} else {
		unsetenv("TTRACE_PARTS");
	}
	t = load_trace(path, &opt);
	dump = fuzz_exercise(t, bd);
	trace_free(t);
	return dump;
}

/* Dump lines that may differ between one piece and parts, known and accepted for now:
 * each part reports its own first few located problems; metadata events are counted as
 * duplicate or conflicting against a part's final names, not one by one; exact
 * duplicates are looked for between neighbours in push order, which the merge changes
 * (E events closing an earlier part's B come after the part's slices); and of a header
 * key given twice, the parts keep the first value where one piece keeps the last. */
static bool parts_may_differ(const char *line)
{
	static const char *const prefixes[] = { "warning ",
		                                "quality duplicate_metadata ",
		                                "quality conflicting_metadata ",
		                                "quality exact_duplicates ",
		                                "rank ",
		                                "device " };
	for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
		if (strncmp(line, prefixes[i], strlen(prefixes[i])) == 0)
			return true;
	return false;
}

/* Returns DUMP without the lines parts_may_differ accepts (allocated). */
static char *comparable(const char *dump)
{
	size_t n = strlen(dump);
	char *out = malloc(n + 1), *o = out;
	if (out == NULL)
		abort();
	for (const char *p = dump; *p != '\0';) {
		const char *nl = strchr(p, '\n');
		size_t len = nl != NULL ? (size_t)(nl - p) + 1 : strlen(p);
		if (!parts_may_differ(p)) {
			memcpy(o, p, len);
			o += len;
		}
		p += len;
	}
	*o = '\0';
	return out;
}

static void report_difference(const char *a, const char *b, int parts)
{
	size_t line = 1, i = 0;
	while (a[i] != '\0' && a[i] == b[i]) {
		if (a[i] == '\n')
			line++;
		i++;
	}
	while (i > 0 && a[i - 1] != '\n')
		i--;
	fprintf(stderr,
	        "fuzz_loader: the model differs when the file is parsed in %d parts, at line %zu of the "
	        "compared dump:\n  one piece: %.200s\n  in parts:  %.200s\n",
	        parts, line, a + i, b + i);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char path[64];
	char *dump, *whole, *split;
	int parts = 2 + (size > 0 ? data[size - 1] % 4 : 0);
	int fd = memfd_create("fuzz_loader", MFD_CLOEXEC);

	if (fd < 0) {
		perror("fuzz_loader: memfd_create");
		abort();
	}
	for (size_t done = 0; done < size;) {
		ssize_t w = write(fd, data + done, size - done);
		if (w <= 0) {
			perror("fuzz_loader: write");
			abort();
		}
		done += (size_t)w;
	}
	snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
	if (!fuzz_oracle_sampled(data, size)) {
		free(load_and_exercise(path, 0, &fuzz_cheap));
		close(fd);
		return 0;
	}
	dump = load_and_exercise(path, 0, &fuzz_full);
	whole = comparable(dump);
	free(dump);
	dump = load_and_exercise(path, parts, &fuzz_full);
	split = comparable(dump);
	free(dump);
	if (strcmp(whole, split) != 0) {
		report_difference(whole, split, parts);
		abort();
	}
	free(whole);
	free(split);
	unsetenv("TTRACE_PARTS");
	close(fd);
	return 0;
}
