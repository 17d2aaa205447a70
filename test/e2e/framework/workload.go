package framework

import (
	"context"
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// WorkloadKind is how the Pod object of a sidecar is owned, i.e. how it
// would have been deployed.
type WorkloadKind string

const (
	// WorkloadPod is a bare Pod without owner.
	WorkloadPod WorkloadKind = "Pod"
	// WorkloadDaemonSet is a DaemonSet controlling its Pods (level 1).
	WorkloadDaemonSet WorkloadKind = "DaemonSet"
	// WorkloadStatefulSet is a StatefulSet controlling its Pods (level 1).
	WorkloadStatefulSet WorkloadKind = "StatefulSet"
	// WorkloadDeployment is a Deployment controlling a ReplicaSet
	// controlling the Pods (level 2).
	WorkloadDeployment WorkloadKind = "Deployment"
)

// WorkloadName is the name of the workload objects SidecarOptions.Workload
// creates.
const WorkloadName = "csi-provisioner"

// PauseImage is the image of the workloads' one container. No kubelet
// runs, so it is never pulled.
const PauseImage = "registry.k8s.io/pause:3.10"

// Workload is an owner chain made by CreateWorkload: the objects a
// Deployment, StatefulSet or DaemonSet would be, without the controllers
// that act on them. kube-controller-manager runs only the controllers of
// ClusterOptions.KCMControllers (the PV binder and the protection
// controllers by default), so nothing deletes or replaces the Pods made by
// hand, and no garbage collector follows the owner references.
type Workload struct {
	Kind      WorkloadKind
	Namespace string
	Name      string
	// Top refers to the DaemonSet, StatefulSet or Deployment, as the
	// controlling owner reference of its dependents; nil for WorkloadPod.
	Top *metav1.OwnerReference
	// PodController refers to what controls the Pods: the DaemonSet or
	// StatefulSet itself, a Deployment's ReplicaSet; nil for WorkloadPod.
	PodController *metav1.OwnerReference
}

// labels are the workload's selector and its Pods' labels.
func (w *Workload) labels() map[string]string { return map[string]string{"app": w.Name} }

// podTemplate is the workload's Pod template.
func (w *Workload) podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: w.labels()},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{
			Name:  "csi-provisioner",
			Image: PauseImage,
		}}},
	}
}

// controllerRef is the controlling owner reference to an object.
func controllerRef(apiVersion, kind string, obj metav1.Object) *metav1.OwnerReference {
	yes := true
	return &metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(), Controller: &yes}
}

// CreateWorkload creates the owner chain of a kind of workload in a
// namespace: a DaemonSet, a StatefulSet, or a Deployment and a ReplicaSet
// it controls, all named name (the ReplicaSet with a hash suffix, as the
// Deployment controller names them). WorkloadPod creates nothing. Pods
// come from Workload.CreatePod.
func CreateWorkload(ctx context.Context, client kubernetes.Interface, namespace string, kind WorkloadKind, name string) (*Workload, error) {
	w := &Workload{Kind: kind, Namespace: namespace, Name: name}
	selector := &metav1.LabelSelector{MatchLabels: w.labels()}
	apps := client.AppsV1()
	switch kind {
	case WorkloadPod:
	case WorkloadDaemonSet:
		ds, err := apps.DaemonSets(namespace).Create(ctx, &appsv1.DaemonSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w.labels()},
			Spec:       appsv1.DaemonSetSpec{Selector: selector, Template: w.podTemplate()},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create DaemonSet %s/%s: %w", namespace, name, err)
		}
		w.Top = controllerRef("apps/v1", "DaemonSet", ds)
		w.PodController = w.Top
	case WorkloadStatefulSet:
		ss, err := apps.StatefulSets(namespace).Create(ctx, &appsv1.StatefulSet{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w.labels()},
			Spec:       appsv1.StatefulSetSpec{Selector: selector, ServiceName: name, Template: w.podTemplate()},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create StatefulSet %s/%s: %w", namespace, name, err)
		}
		w.Top = controllerRef("apps/v1", "StatefulSet", ss)
		w.PodController = w.Top
	case WorkloadDeployment:
		d, err := apps.Deployments(namespace).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: name, Labels: w.labels()},
			Spec:       appsv1.DeploymentSpec{Selector: selector, Template: w.podTemplate()},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create Deployment %s/%s: %w", namespace, name, err)
		}
		w.Top = controllerRef("apps/v1", "Deployment", d)
		// What the Deployment controller would make: a ReplicaSet
		// named after the template hash, controlled by the Deployment.
		const hash = "6b7f9c5d4"
		rsLabels := w.labels()
		rsLabels[appsv1.DefaultDeploymentUniqueLabelKey] = hash
		template := w.podTemplate()
		template.Labels = rsLabels
		rs, err := apps.ReplicaSets(namespace).Create(ctx, &appsv1.ReplicaSet{
			ObjectMeta: metav1.ObjectMeta{Name: name + "-" + hash, Labels: rsLabels, OwnerReferences: []metav1.OwnerReference{*w.Top}},
			Spec:       appsv1.ReplicaSetSpec{Selector: &metav1.LabelSelector{MatchLabels: rsLabels}, Template: template},
		}, metav1.CreateOptions{})
		if err != nil {
			return nil, fmt.Errorf("create ReplicaSet of Deployment %s/%s: %w", namespace, name, err)
		}
		w.PodController = controllerRef("apps/v1", "ReplicaSet", rs)
	default:
		return nil, fmt.Errorf("unknown workload kind %q", kind)
	}
	return w, nil
}

// CreatePod creates a Pod of the workload named name, controlled by
// PodController (none for WorkloadPod), bound to node unless it is empty.
// It stays Pending: no kubelet runs. A Pod of that name that exists
// already is returned as it is, so a sidecar process started again keeps
// its Pod.
func (w *Workload) CreatePod(ctx context.Context, client kubernetes.Interface, name, node string) (*corev1.Pod, error) {
	template := w.podTemplate()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: w.Namespace, Labels: template.Labels},
		Spec:       template.Spec,
	}
	if w.PodController != nil {
		pod.OwnerReferences = []metav1.OwnerReference{*w.PodController}
	}
	pod.Spec.NodeName = node
	out, err := client.CoreV1().Pods(w.Namespace).Create(ctx, pod, metav1.CreateOptions{})
	if apierrors.IsAlreadyExists(err) {
		out, err = client.CoreV1().Pods(w.Namespace).Get(ctx, name, metav1.GetOptions{})
	}
	if err != nil {
		return nil, fmt.Errorf("create Pod %s/%s: %w", w.Namespace, name, err)
	}
	return out, nil
}

// PodEnv is what the downward API gives a container of the pod that
// --enable-capacity reads: POD_NAME and NAMESPACE.
func PodEnv(pod *corev1.Pod) []string {
	return []string{"POD_NAME=" + pod.Name, "NAMESPACE=" + pod.Namespace}
}

// workload returns the stack's workload of a kind, creating it in the
// stack's namespace, named WorkloadName, the first time.
func (s *Stack) workload(ctx context.Context, kind WorkloadKind) (*Workload, error) {
	if w := s.workloads[kind]; w != nil {
		return w, nil
	}
	w, err := CreateWorkload(ctx, s.Client(), s.namespace, kind, WorkloadName)
	if err != nil {
		return nil, err
	}
	if s.workloads == nil {
		s.workloads = map[WorkloadKind]*Workload{}
	}
	s.workloads[kind] = w
	return w, nil
}

// Workload returns the stack's workload of a kind (SidecarOptions.Workload),
// or nil if no sidecar was started with it.
func (s *Stack) Workload(kind WorkloadKind) *Workload { return s.workloads[kind] }
