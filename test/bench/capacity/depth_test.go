package capacity

import (
	"testing"
	"time"
)

func TestTheDepthOfTheFirstAndLastPollAreTheirLargestReadings(t *testing.T) {
	s := func(sec, depth int) DepthSample {
		return DepthSample{At: time.Duration(sec) * time.Second, Depth: depth, Pending: -1, Took: time.Duration(depth) * time.Microsecond}
	}
	samples := []DepthSample{s(10, 4000), s(50, 3900), s(70, 8000), s(130, 9000), s(175, 11000), s(179, 10500)}
	got := depthSummary(samples, 2, time.Minute, 3*time.Minute)
	want := DepthSummary{FirstPoll: 4000, LastPoll: 11000, Max: 11000, Scrapes: 6, FailedScrapes: 2, SlowestScrape: 11 * time.Millisecond}
	if got != want {
		t.Fatalf("summary %+v, want %+v", got, want)
	}
	if got := depthSummary(nil, 3, time.Minute, 3*time.Minute); got != (DepthSummary{FirstPoll: -1, LastPoll: -1, Max: -1, FailedScrapes: 3}) {
		t.Fatalf("summary of an unread queue %+v, want -1 throughout", got)
	}
}

func TestSlowScrapesAreSpacedOutSoTheSidecarIsScrapedATenthOfTheTime(t *testing.T) {
	for _, tc := range []struct{ took, want time.Duration }{
		{10 * time.Millisecond, 4990 * time.Millisecond},
		{2 * time.Second, 18 * time.Second},
	} {
		if got := scrapeGap(5*time.Second, tc.took); got != tc.want {
			t.Errorf("after a scrape of %s: wait %s, want %s", tc.took, got, tc.want)
		}
	}
}

func TestTheBacklogCountsPendingWritesWhereTheSidecarHasThem(t *testing.T) {
	ours := DepthSample{Depth: 3, Pending: 790}
	upstream := DepthSample{Depth: 21000, Pending: -1}
	if ours.Backlog() != 793 || upstream.Backlog() != 21000 {
		t.Fatalf("backlogs %d and %d, want 793 (queued keys and pending writes) and 21,000 (the queue alone)", ours.Backlog(), upstream.Backlog())
	}
	got := depthSummary([]DepthSample{{At: time.Second, Depth: 0, Pending: 800}}, 0, time.Minute, time.Minute)
	if got.FirstPoll != 800 || got.LastPoll != 800 {
		t.Fatalf("summary %+v, want the pending writes counted", got)
	}
}
