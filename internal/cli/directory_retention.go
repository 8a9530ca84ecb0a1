package cli

import (
	"flag"
	"time"

	"github.com/diperf/diperf/internal/directory"
	"github.com/diperf/diperf/internal/errs"
)

// addRetentionFlags adds the flags of the directory's retention policy.
func addRetentionFlags(fs *flag.FlagSet, r *directory.Retention) {
	fs.DurationVar(&r.KeepRaw, "keep-raw", directory.DefaultKeepRaw,
		"keep results as written for this long, then fold them into medians (and delete older forecasts); 0 keeps everything")
	fs.DurationVar(&r.Bucket, "downsample", directory.DefaultBucket,
		"fold results older than --keep-raw into one median per pair, kind and this much time")
	fs.DurationVar(&r.KeepDownsampled, "keep-downsampled", directory.DefaultKeepDownsampled,
		"delete the medians after this long; 0 keeps them (the latest result of each pair is always kept)")
}

// checkRetention refuses a retention that makes no sense.
func checkRetention(r directory.Retention) error {
	switch {
	case r.KeepRaw < 0 || r.KeepDownsampled < 0:
		return errs.Usagef("--keep-raw and --keep-downsampled must be 0 (keep) or positive")
	case r.KeepRaw > 0 && (r.Bucket < time.Second || r.Bucket > r.KeepRaw):
		return errs.Usagef("--downsample must be from 1s to --keep-raw (%v)", r.KeepRaw)
	case r.KeepRaw > 0 && r.KeepDownsampled > 0 && r.KeepDownsampled <= r.KeepRaw:
		return errs.Usagef("--keep-downsampled must be 0 (keep) or longer than --keep-raw (%v)", r.KeepRaw)
	}
	return nil
}
