package report

import "testing"

func TestEmbeddedReportsKeepTheirHeadingsUnderTheOverviews(t *testing.T) {
	got := demoteHeadings(dropTitle("# Title\n\ntext\n## Runs\n```\n# not a heading\n```\n"), 2)
	want := "text\n#### Runs\n```\n# not a heading\n```\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
