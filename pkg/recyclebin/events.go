package recyclebin

// Event reasons of the recycle bin.
const (
	ReasonRetained        = "VolumeRetained"
	ReasonRetentionBroken = "VolumeRetentionInvalid"
	ReasonExpired         = "VolumeRetentionExpired"
	ReasonPurged          = "VolumePurged"
	ReasonRestored        = "VolumeRestored"
	ReasonRestoreRefused  = "VolumeRestoreRefused"
)
