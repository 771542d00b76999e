/* gaps.h: where the GPU waits, and why (gap hunting).
 *
 * Per device, the union of the busy time of its kernels, memcpys and memsets over all
 * its streams; a gap is time inside the analysed window where nothing runs on the device
 * (and, HTA's view, per stream: time between consecutive GPU operations of one stream).
 * Each gap gets a cause from the CPU side, found by following the first GPU operation
 * after the gap back to the runtime call that launched it, and HTA's class. Utilization
 * uses the TensorBoard plugin's definition (kernels only, union over streams, over its
 * device-adjusted steps). Every figure says which definition it uses in ttrace(1). */
#ifndef TT_GAPS_H
#define TT_GAPS_H

#include "src/model.h"
#include "src/tb_steps.h"

/* Why a device gap happened, by the first rule that holds, in this order (ttrace(1),
 * GAP CAUSES). "Covers" means overlaps at least half of the gap. */
enum gap_cause {
	GC_SYNC,       /* a blocking call covers the gap on some CPU thread: stream/device/event sync,
	                * cudaFree, .item(), cudaMemcpy, a device-to-pageable cudaMemcpyAsync */
	GC_DATALOADER, /* a DataLoader __next__ or pin-memory frame covers the gap */
	GC_PAGEABLE,   /* the next GPU operation is a pageable (or blocking) host-to-device copy */
	GC_WAIT,       /* the next work was launched before the GPU ran dry: it waited on an event,
	                * another stream or a collective */
	GC_LAUNCH,     /* launched during the gap, and the launching thread's launch calls cover it */
	GC_CPU,        /* launched during the gap; the deepest frame covering it on the launching
	                * thread is named (operator, Python, label; ProfilerStep#N is not work) */
	GC_NO_CPU,     /* launched during the gap, and nothing covers it on the launching thread */
	GC_OTHER,      /* the next GPU operation or its launch is not known */
	GC__COUNT
};

enum hta_class { HTA_HOST_WAIT, HTA_KERNEL_WAIT, HTA_OTHER, HTA__COUNT };

struct gap {
	int32_t device;
	uint32_t track; /* the stream for a per-stream gap, TT_NONE for a device gap */
	int64_t start, end;
	int64_t step; /* ProfilerStep number it lies in, or -1 */
	enum gap_cause cause;
	enum hta_class hta;
	struct slice_ref cpu;  /* the CPU slice that explains it, or {TT_NONE} */
	struct slice_ref op;   /* GC_SYNC: the outermost operator around that call, or {TT_NONE} */
	struct slice_ref user; /* the user's line around the CPU slice: the deepest Python frame
	                        * outside torch/, other installed libraries and the standard
	                        * library (gaps_is_user_frame), or {TT_NONE} */
	struct slice_ref next; /* the first GPU operation after it, or {TT_NONE} */
	int32_t rank;          /* 0 here; a view of several ranks sets the rank position */
};

struct device_gaps {
	int32_t device;
	int64_t kernel_busy;              /* |union of kernels| inside the TB window */
	int64_t busy;                     /* |union of kernels, memcpys, memsets| inside the analysed window */
	int64_t idle;                     /* analysed window - busy */
	int64_t idle_by_cause[GC__COUNT]; /* over the device gaps of at least min_gap */
	int64_t idle_by_hta[HTA__COUNT];  /* over the per-stream gaps (HTA's idle breakdown) */
	int64_t *step_kernel_busy;        /* per TB step: |union of kernels ∩ step| */
	struct span *busy_spans;          /* the union of kernels, memcpys, memsets, in time order */
	int64_t *busy_prefix;             /* busy_prefix[i] = total length of busy_spans[0..i) */
	uint32_t nbusy;
};

struct gap_report {
	int64_t min_gap;
	int64_t start, end;    /* the analysed window */
	bool from_steps;       /* the window is the span of the ProfilerSteps */
	struct tb_step *steps; /* the TensorBoard plugin's steps (kept ones; src/tb_steps.h) */
	uint32_t nsteps;
	int64_t tb_start, tb_end; /* first step start, last step end: utilization's denominator */
	struct device_gaps *devices;
	uint32_t ndevices;
	struct gap *gaps; /* device gaps of at least min_gap, longest first */
	uint32_t ngaps;
	struct gap *stream_gaps; /* per-stream gaps of at least min_gap (HTA's view), longest first */
	uint32_t nstream_gaps;
};

/* Finds the gaps of T longer than MIN_GAP ns and their causes into R (free with
 * gaps_free), over the plugin's steps STEPS (NSTEPS of them, as tb_steps_find gives them;
 * copied) or, when STEPS is NULL, those it finds. Never fails: a trace without GPU work
 * gives no devices. */
void gaps_analyse(const struct trace *t, int64_t min_gap, const struct tb_step *steps, uint32_t nsteps,
                  struct gap_report *r);
void gaps_free(struct gap_report *r);
/* Time in [t0, t1) during which device D's GPU runs something (O(log n)). */
int64_t gaps_device_busy(const struct device_gaps *d, int64_t t0, int64_t t1);
/* "data loading", "host sync", ... and a stable key ("dataloader", "sync", ...), and the
 * rule in one line. */
const char *gap_cause_text(enum gap_cause c);
const char *gap_cause_key(enum gap_cause c);
const char *gap_cause_rule(enum gap_cause c);
const char *hta_class_key(enum hta_class c);

/* Whether NAME, a Python frame as Kineto writes it ("train.py(45): step",
 * "torch/nn/modules/module.py(1743): _call_impl"), is the user's own code: not under torch/,
 * site-packages/ or dist-packages/, not a module of the Python standard library or of the
 * common libraries Kineto writes as relative paths (numpy/, transformers/, ...), not a
 * built-in function. */
bool gaps_is_user_frame(const char *name);

/* The chain from the user's frame USER down to the CPU slice CPU (both of T, on one
 * track; USER an ancestor of CPU or CPU itself) into BUF (N bytes, cut with "..."): the
 * frames' names outermost first, each as the trace has it, joined by " > ", USER first and
 * CPU last. "" when either is {TT_NONE} or USER is not above CPU. Returns BUF. Names are
 * the trace's bytes: escape them before they reach a terminal. */
char *gaps_user_chain(const struct trace *t, struct slice_ref user, struct slice_ref cpu, char *buf, size_t n);

#endif
