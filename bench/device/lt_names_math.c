/* SPDX-License-Identifier: MIT */
/*
 * lt_names_math.c - cuBLASLt's tile and stages ids to their names, from the
 * lists of lt_names.h (no CUDA include, so unit tested without the toolkit).
 */
#include <stddef.h>
#include <stdint.h>

#include "bench/device/lt_names.h"

#define GB_LT_NAME(name, value) [value] = #name,
static const char *const lt_tiles[GB_LT_TILE_END] = { GB_LT_TILES(GB_LT_NAME) };
static const char *const lt_stages[GB_LT_STAGES_END] = { GB_LT_STAGES(GB_LT_NAME) };
#undef GB_LT_NAME

const char *gb_lt_tile_name(uint32_t tile_id)
{
	if (tile_id == 0)
		return "undefined";
	return tile_id < GB_LT_TILE_END ? lt_tiles[tile_id] : NULL;
}

const char *gb_lt_stages_name(uint32_t stages_id)
{
	if (stages_id == 0)
		return "undefined";
	return stages_id < GB_LT_STAGES_END ? lt_stages[stages_id] : NULL;
}

