package rollback

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
)

// Verdict sums up the findings; counts are of objects, not rows.
type Verdict struct {
	// Ready is true when nothing needs the operator and nothing is left
	// to clear: the image may be swapped back.
	Ready bool
	// NeedsYou are the objects the operator must see to first.
	NeedsYou int
	// ToClear are the objects ModeClear would clear (ModeReport only).
	ToClear int
	// Cleared are the objects ModeClear cleared.
	Cleared int
	// KeptVolumes are the recycle bin's volumes that stay kept.
	KeptVolumes int
}

func verdictOf(findings []Finding) Verdict {
	objects := map[Verb]map[string]bool{}
	for _, f := range findings {
		if objects[f.Action.Verb] == nil {
			objects[f.Action.Verb] = map[string]bool{}
		}
		objects[f.Action.Verb][f.Kind+" "+f.object()] = true
	}
	v := Verdict{
		NeedsYou: len(objects[NeedsYou]),
		ToClear:  len(objects[WouldClear]),
		Cleared:  len(objects[Cleared]),
	}
	for key := range objects[Kept] {
		if strings.HasPrefix(key, kindVolume+" ") {
			v.KeptVolumes++
		}
	}
	v.Ready = v.NeedsYou == 0 && v.ToClear == 0
	return v
}

// Line is the verdict in one line.
func (v Verdict) Line() string {
	if v.Ready {
		var notes []string
		if v.Cleared > 0 {
			notes = append(notes, "cleared "+count(v.Cleared, "object", "objects"))
		}
		if v.KeptVolumes > 0 {
			notes = append(notes, count(v.KeptVolumes, "kept volume stays", "kept volumes stay")+" kept, and will not expire under upstream")
		}
		line := "Ready to swap back: nothing upstream would mishandle"
		if len(notes) > 0 {
			line += " (" + strings.Join(notes, "; ") + ")"
		}
		return line + "."
	}
	var reasons []string
	if v.NeedsYou > 0 {
		reasons = append(reasons, count(v.NeedsYou, "object needs", "objects need")+` you first (see "needs you" above)`)
	}
	if v.ToClear > 0 {
		reasons = append(reasons, count(v.ToClear, "object", "objects")+" would be cleared by --prepare-rollback=clear")
	}
	return "Not ready: " + strings.Join(reasons, ", and ") + "."
}

// count spells n with the singular or plural phrase.
func count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// write prints what was checked, the table of findings and the verdict.
func (r *Report) write(w io.Writer) error {
	changed := "changed nothing"
	if r.Mode == ModeClear {
		changed = "cleared what is safe to clear"
	}
	fmt.Fprintf(w, "Checked %s, %s and %s in the whole cluster; --prepare-rollback=%s %s.\n",
		count(r.Checked[kindClaim], "claim", "claims"), count(r.Checked[kindVolume], "PV", "PVs"),
		count(r.Checked[kindClass], "StorageClass", "StorageClasses"), r.Mode, changed)
	if len(r.Findings) == 0 {
		fmt.Fprintln(w, "Nothing of this project's is left that upstream would mishandle.")
	} else {
		fmt.Fprintf(w, "Keys without a domain are under %s.\n\n", domain)
		tw := tabwriter.NewWriter(w, 0, 8, 2, ' ', 0)
		fmt.Fprintln(tw, "KIND\tNAMESPACE/NAME\tDRIVER\tWHAT\tACTION")
		for _, f := range r.Findings {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", f.Kind, f.object(), orDash(f.Driver), f.What, f.Action)
		}
		if err := tw.Flush(); err != nil {
			return err
		}
		fmt.Fprintln(w)
	}
	_, err := fmt.Fprintln(w, r.Verdict.Line())
	return err
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
