DROP TABLE unrecorded_scans;
