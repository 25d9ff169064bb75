/*
 * The taps of the correlator (correlate.h): pending taps in t_up order,
 * and the recent touch-downs that close their windows.
 */
#ifndef TAPD_CORRELATE_TAPS_H
#define TAPD_CORRELATE_TAPS_H

#include "correlate_int.h"

/*
 * Forgets the touch-downs at or before the input watermark and the last
 * fed t_up: no tap still to come can end its window at one of them.
 */
void correlate_taps_forget_touch_downs(struct correlate *c);

#endif
