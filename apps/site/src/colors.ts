/**
 * Colours by grade, the core's palette (`Palette` in `@climate-grade/core/rules`), which the share
 * card uses too: ColorBrewer's RdBu for temperature and BrBG for precipitation. Text drawn on a
 * colour uses `inkOn`, chosen for contrast.
 */
import { Palette } from "@climate-grade/core/rules"

export const { labelColor, percentileColor, inkOnColor, inkOn, LEGEND, NO_DATA } = Palette
