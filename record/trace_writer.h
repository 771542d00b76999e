/* trace_writer.h: CUPTI activity records to Chrome trace events in torch.profiler's layout.
 *
 * The recorder hands every record of a completed activity buffer to tw_record, which
 * appends the events it makes (with their metadata events, the first time a process,
 * GPU, stream or thread is seen) to the writer's text. The text is a run of events each
 * preceded by ",\n", so that it follows tw_prefix (which ends with a first event) and
 * any earlier text, and tw_suffix closes the array and the object: prefix + texts + suffix
 * is one JSON document at any point. Pure: no CUPTI calls, no I/O, so tests feed it
 * records they fill themselves. Kineto's writer (libkineto output_json.cpp) is the model:
 * the same categories, names, args and units (microseconds, three decimals, from
 * baseTimeNanoseconds). */
#ifndef TTRACE_RECORD_TRACE_WRITER_H
#define TTRACE_RECORD_TRACE_WRITER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cupti.h>

/* The record structs of the CUPTI the build has: CUDA 13 renumbered several of them. */
#if CUPTI_API_VERSION >= 130000
typedef CUpti_ActivityKernel10 tw_kernel;
typedef CUpti_ActivityMemcpy6 tw_memcpy;
typedef CUpti_ActivityDevice5 tw_device;
typedef CUpti_ActivityContext3 tw_context;
typedef CUpti_ActivityOverhead3 tw_overhead;
typedef CUpti_ActivitySynchronization2 tw_sync;
#else
typedef CUpti_ActivityKernel8 tw_kernel;
typedef CUpti_ActivityMemcpy5 tw_memcpy;
typedef CUpti_ActivityDevice4 tw_device;
typedef CUpti_ActivityContext tw_context;
typedef CUpti_ActivityOverhead tw_overhead;
typedef CUpti_ActivitySynchronization tw_sync;
#endif
typedef CUpti_ActivityMemset4 tw_memset;
typedef CUpti_ActivityMarker2 tw_marker;

/* The name of a runtime (domain CUPTI_CB_DOMAIN_RUNTIME_API) or driver API call: the
 * recorder passes cuptiGetCallbackName, tests their own table. NULL when unknown. */
typedef const char *(*tw_callback_name_fn)(CUpti_CallbackDomain domain, uint32_t cbid);

struct tw_options {
	uint64_t base_ns;        /* baseTimeNanoseconds: event times are written relative to it */
	int64_t clock_offset_ns; /* added to every CUPTI timestamp to put it on CLOCK_REALTIME */
	uint32_t pid;            /* the recorded process */
	const char *process_name;
	const char *hostname;
	int rank, world_size, local_rank; /* -1 when not known (env RANK, WORLD_SIZE, LOCAL_RANK) */
	bool no_api;                      /* drop runtime and driver calls (and so the flows) */
	tw_callback_name_fn callback_name;
	/* the name of a host thread (NULL: none known); the recorder reads /proc */
	char *(*thread_name)(uint32_t pid, uint32_t tid);
	/* a kernel's name made readable (allocated), or NULL to keep it as CUPTI gives it */
	char *(*demangle)(const char *mangled);
};

struct tw;

struct tw *tw_new(const struct tw_options *opt);
void tw_free(struct tw *w);

/* Appends the events REC makes to the text. Records of kinds it does not know are
 * counted (tw_stats) and skipped. */
void tw_record(struct tw *w, const CUpti_Activity *rec);

/* Writes the GPU spans (gpu_user_annotation) of NVTX ranges that have ended, even those
 * whose GPU work has not all come: at the end of the recording. */
void tw_flush_annotations(struct tw *w);

/* A note for the trace's "ttrace" header object, e.g. records CUPTI dropped. */
void tw_set_dropped(struct tw *w, uint64_t dropped);

/* The text made since the last tw_take (NUL-terminated, owned by the writer until the
 * next call); *LEN its length. */
const char *tw_take(struct tw *w, size_t *len);

/* The document's opening, up to and including its first event; and a closing that ends
 * the event array after any text and writes deviceProperties and the recorder's notes.
 * Both allocated: the caller frees. */
char *tw_prefix(struct tw *w, size_t *len);
char *tw_suffix(struct tw *w, size_t *len);

struct tw_stats {
	uint64_t kernels, memcpys, memsets, api_calls, markers, syncs, overheads, unknown;
	uint64_t open_ranges;       /* NVTX ranges started and not (yet) ended */
	uint64_t first_ns, last_ns; /* on the host clock; 0 when no timed record yet */
	unsigned devices;
};
void tw_stats(const struct tw *w, struct tw_stats *out);

/* Strips a CUPTI API name's version suffix ("cudaLaunchKernel_v7000" -> "cudaLaunchKernel")
 * into OUT (size N). */
void tw_api_name(const char *cupti_name, char *out, size_t n);

/* Whether a runtime or driver call by this (stripped) name puts work on a GPU stream, so
 * that Kineto's "ac2g" flow starts at it. */
bool tw_is_launch(const char *name);

#endif
