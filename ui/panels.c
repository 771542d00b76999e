/* panels.c: the table of views a key opens (see panels.h). */
#include "ui/panels.h"

#include <stddef.h>

#include "ui/advice_view.h"
#include "ui/bookmark_list.h"
#include "ui/diff_view.h"
#include "ui/dist_view.h"
#include "ui/gap_list.h"
#include "ui/help.h"
#include "ui/kernel_view.h"
#include "ui/memory_view.h"
#include "ui/op_view.h"
#include "ui/overview.h"
#include "ui/quality_view.h"

static const struct panel_entry entries[] = {
	{ A_HELP, "help", help_open },
	{ A_GAP_LIST, "gap list", gap_list_open },
	{ A_DIST_VIEW, "distributed", dist_view_open },
	{ A_OP_VIEW, "operators", op_view_open },
	{ A_KERNEL_VIEW, "kernels", kernel_view_open },
	{ A_OVERVIEW, "overview", overview_open },
	{ A_MEMORY_VIEW, "memory", memory_view_open },
	{ A_QUALITY_VIEW, "data quality", quality_view_open },
	{ A_ADVICE_VIEW, "advice", advice_view_open },
	{ A_BOOKMARK_LIST, "bookmarks", bookmark_list_open },
	{ A_DIFF_VIEW, "diff", diff_view_open },
};

const struct panel_entry *panels_find(enum action a)
{
	for (size_t i = 0; i < sizeof entries / sizeof *entries; i++)
		if (entries[i].action == a)
			return &entries[i];
	return NULL;
}
