package recyclebin

import (
	"testing"
	"time"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func classWith(annotations map[string]string) *storagev1.StorageClass {
	return &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast", Annotations: annotations}}
}

func TestTheClassOverridesTheDefaultRetention(t *testing.T) {
	policy := Policy{Default: 24 * time.Hour}
	cases := []struct {
		name  string
		class *storagev1.StorageClass
		want  time.Duration
	}{
		{"no class: the default", nil, 24 * time.Hour},
		{"a class that does not say: the default", classWith(nil), 24 * time.Hour},
		{"a class that says longer", classWith(map[string]string{AnnRetention: "72h"}), 72 * time.Hour},
		{"a class that turns it off", classWith(map[string]string{AnnRetention: "0"}), 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := policy.For(tc.class)
			if err != nil || got != tc.want {
				t.Fatalf("For() = %v, %v; want %v, nil", got, err, tc.want)
			}
		})
	}
}

func TestAClassSettingThatDoesNotParseIsAnErrorNotNoRetention(t *testing.T) {
	for _, value := range []string{"3 days", "-1h", ""} {
		t.Run(value, func(t *testing.T) {
			got, err := Policy{Default: time.Hour}.For(classWith(map[string]string{AnnRetention: value}))
			if err == nil {
				t.Fatalf("For() = %v, nil; want an error naming the annotation", got)
			}
		})
	}
}
