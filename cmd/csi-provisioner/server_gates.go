package main

import (
	"slices"

	"k8s.io/component-base/featuregate"
)

// serverGates are the feature gates of upstream v6.3.0's --feature-gates
// that are not its own: those k8s.io/apiserver registers in the process-wide
// gate upstream sets from the flag. Upstream accepts them, with their
// maturity and locks (a gate locked to its default refuses the other
// value), and nothing there reads them; here too, so that a command line
// naming one starts, with a warning that it has no effect. Read from
// upstream v6.3.0's binary (its gate's GetAll).
var serverGates = map[featuregate.Feature]featuregate.FeatureSpec{
	"APIResponseCompression":                              {Default: true, PreRelease: featuregate.Beta},
	"APIServerIdentity":                                   {Default: true, PreRelease: featuregate.Beta},
	"APIServerTracing":                                    {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"APIServingWithRoutine":                               {Default: false, PreRelease: featuregate.Alpha},
	"AggregatedDiscoveryRemoveBetaType":                   {Default: true, PreRelease: featuregate.Deprecated, LockToDefault: true},
	"AllowParsingUserUIDFromCertAuth":                     {Default: true, PreRelease: featuregate.Beta},
	"AllowUnsafeMalformedObjectDeletion":                  {Default: false, PreRelease: featuregate.Alpha},
	"AnonymousAuthConfigurableEndpoints":                  {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"AuthorizeWithSelectors":                              {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"BtreeWatchCache":                                     {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"CBORServingAndStorage":                               {Default: false, PreRelease: featuregate.Alpha},
	"ComponentFlagz":                                      {Default: true, PreRelease: featuregate.Beta},
	"ComponentStatusz":                                    {Default: true, PreRelease: featuregate.Beta},
	"ConcurrentWatchObjectDecode":                         {Default: false, PreRelease: featuregate.Beta},
	"ConsistentListFromCache":                             {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"ConstrainedImpersonation":                            {Default: true, PreRelease: featuregate.Beta},
	"CoordinatedLeaderElection":                           {Default: false, PreRelease: featuregate.Beta},
	"DeclarativeValidation":                               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"DeclarativeValidationBeta":                           {Default: true, PreRelease: featuregate.Beta},
	"DeclarativeValidationTakeover":                       {Default: false, PreRelease: featuregate.Deprecated},
	"DetectCacheInconsistency":                            {Default: true, PreRelease: featuregate.Beta},
	"KMSv1":                                               {Default: false, PreRelease: featuregate.Deprecated},
	"ListFromCacheSnapshot":                               {Default: true, PreRelease: featuregate.Beta},
	"ManifestBasedAdmissionControlConfig":                 {Default: false, PreRelease: featuregate.Alpha},
	"MutatingAdmissionPolicy":                             {Default: true, PreRelease: featuregate.GA},
	"NativeHistograms":                                    {Default: false, PreRelease: featuregate.Alpha},
	"OpenAPIEnums":                                        {Default: true, PreRelease: featuregate.Beta},
	"RemoteRequestHeaderUID":                              {Default: true, PreRelease: featuregate.Beta},
	"ResilientWatchCacheInitialization":                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"RetryGenerateName":                                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"SeparateCacheWatchRPC":                               {Default: false, PreRelease: featuregate.Deprecated, LockToDefault: true},
	"ShardedListAndWatch":                                 {Default: false, PreRelease: featuregate.Alpha},
	"SizeBasedListCostEstimate":                           {Default: true, PreRelease: featuregate.Beta},
	"StorageVersionAPI":                                   {Default: false, PreRelease: featuregate.Alpha},
	"StorageVersionHash":                                  {Default: true, PreRelease: featuregate.Beta},
	"StreamingCollectionEncodingToJSON":                   {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"StreamingCollectionEncodingToProtobuf":               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"StructuredAuthenticationConfiguration":               {Default: true, PreRelease: featuregate.GA, LockToDefault: true},
	"StructuredAuthenticationConfigurationEgressSelector": {Default: true, PreRelease: featuregate.Beta},
	"StructuredAuthenticationConfigurationJWKSMetrics":    {Default: true, PreRelease: featuregate.Beta},
	"TokenRequestServiceAccountUIDValidation":             {Default: true, PreRelease: featuregate.Beta},
	"UnauthenticatedHTTP2DOSMitigation":                   {Default: true, PreRelease: featuregate.Beta},
	"UnknownVersionInteroperabilityProxy":                 {Default: true, PreRelease: featuregate.Beta},
	"WatchCacheInitializationPostStartHook":               {Default: true, PreRelease: featuregate.Beta},
	"WatchList":                                           {Default: true, PreRelease: featuregate.Beta},
}

// addServerGates registers serverGates in gate, next to the provisioner's.
func addServerGates(gate featuregate.MutableVersionedFeatureGate) {
	if err := gate.Add(serverGates); err != nil {
		// The table is static and disjoint from the provisioner's gates.
		panic("registering upstream's API server feature gates: " + err.Error())
	}
}

// setServerGates are the serverGates the command line set, sorted.
func setServerGates(gate featuregate.MutableVersionedFeatureGate) []string {
	var set []string
	for name := range serverGates {
		if gate.ExplicitlySet(name) {
			set = append(set, string(name))
		}
	}
	slices.Sort(set)
	return set
}
