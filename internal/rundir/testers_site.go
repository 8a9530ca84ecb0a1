package rundir

import (
	"errors"
	"fmt"
	"unicode"
	"unicode/utf8"
)

// MaxSite bounds a site's name in bytes: the sensor directory's longest
// group ("site:" and the name) is 64 bytes.
const MaxSite = 64

// CheckSite returns why site cannot be a tester host's site, nil when it
// can: at most MaxSite bytes of valid UTF-8, every character printable
// and none a space ("" is no site, and fine).
func CheckSite(site string) error {
	switch {
	case len(site) > MaxSite:
		return fmt.Errorf("site is %d bytes long; at most %d", len(site), MaxSite)
	case !utf8.ValidString(site):
		return errors.New("site is not valid UTF-8")
	}
	for _, r := range site {
		if r == ' ' || !unicode.IsPrint(r) {
			return fmt.Errorf("site holds %U, a space, control, format or unassigned character", r)
		}
	}
	return nil
}

// readSiteColumn reads testers.csv's site column, by name, when r has
// it (a file written before it reads as no site). A site CheckSite
// refuses is not kept: SiteRefused says why.
func readSiteColumn(t *TesterRecord, r []string) {
	for i := testerColumnsV2; i < len(r) && i < len(testerHeader); i++ {
		if testerHeader[i] != "site" {
			continue
		}
		if err := CheckSite(r[i]); err != nil {
			t.SiteRefused = err.Error()
			return
		}
		t.Site = r[i]
	}
}
