/*
 * Schema version 9: the device each run measured (daemon/devid.h), so
 * that a database copied off a phone still says which phone it is.  One row per run that knew anything
 * of its device; NULL is unknown.  Live the identity comes from getprop,
 * in a replay from device.json.
 */
CREATE TABLE run_devices (
	run_id INTEGER PRIMARY KEY REFERENCES runs (id),
	serial TEXT,
	manufacturer TEXT,
	model TEXT,
	fingerprint TEXT,
	sdk INTEGER CHECK (sdk > 0),
	abi TEXT,
	refresh_hz INTEGER CHECK (refresh_hz > 0),
	width INTEGER CHECK (width > 0),
	height INTEGER CHECK (height > 0),
	density_dpi INTEGER CHECK (density_dpi > 0)
);
