/* comm_args.h: the message of a collective as Kineto writes it in the args of NCCL/RCCL
 * kernels and record_param_comms operators ("In msg nelems", "Out msg nelems", "dtype",
 * "Group size", "Collective name", "Process Group Name"), read back on demand through the
 * trace's args store and parsed here, where cJSON is allowed. */
#ifndef TT_COMM_ARGS_H
#define TT_COMM_ARGS_H

#include <stdbool.h>
#include <stdint.h>

#include "src/args.h"
#include "src/model.h"

struct comm_args {
	bool sized;                    /* In msg nelems and a dtype of known size were there */
	int64_t in_nelems, out_nelems; /* -1 when absent */
	int elem_bytes;                /* of dtype ("Float" 4, "BFloat16" 2, ...); 0 unknown */
	int group_size;                /* -1 when absent */
	char collective[48];           /* "allreduce", "" when absent */
	char group[64];                /* Process Group Name, else Description, "" when absent */
};

/* Reads the args that ARGS (a slice's: slice_args) points at, through READER (its
 * trace's), into *OUT. Returns 0, or -1 when they cannot be read or parsed (then *OUT
 * says nothing: sized false). */
int comm_args_read(struct args_reader *reader, uint64_t args, struct comm_args *out);
/* The same from the args object's TEXT. Most texts are read in one pass without a tree;
 * TREE true reads every one through cJSON's tree, as all were before (the reference that
 * one pass is tested against: tests/unit/test_comm_args). */
int comm_args_parse(const char *text, struct comm_args *out, bool tree);
/* Bytes of an element of the c10 scalar type NAME ("Float", "Half", "BFloat16", "Long",
 * ...); 0 when unknown. */
int comm_dtype_bytes(const char *name);

#endif
