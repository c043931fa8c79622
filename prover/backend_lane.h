/*
 * Which device a prover lane runs on: the one rule the backend (which deals
 * its lanes to the devices) and the diagnosis (which reads a prove worker's
 * rows of stages.csv as that device's) share. Header only, no dependencies:
 * harness/ may include it.
 */
#ifndef ZKB_BACKEND_LANE_H
#define ZKB_BACKEND_LANE_H

/* The index into the run's device list (--gpus) of lane (= prove worker)
 * `lane` among n_devices devices: lanes are dealt round-robin. 0 when there
 * are no devices. */
static inline unsigned backend_lane_device(unsigned lane, unsigned n_devices)
{
    return n_devices ? lane % n_devices : 0;
}

#endif
