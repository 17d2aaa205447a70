package controller

// LibraryClaimUIDIndex is the index of claims by UID that the provisioning
// library registers on the claim informer it is given (its uidIndex): it
// finds the claims of its queue, whose keys are UIDs. Controllers on the
// same informer read it rather than keep a second index of every claim.
const LibraryClaimUIDIndex = "uid"
