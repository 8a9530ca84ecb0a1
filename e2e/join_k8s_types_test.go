package e2e

// joinK8sContainer is the part of a container (or init container) the
// checks of deploy/kubernetes read.
type joinK8sContainer struct {
	Name    string   `yaml:"name"`
	Image   string   `yaml:"image"`
	Command []string `yaml:"command"`
	Args    []string `yaml:"args"`
	Env     []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
	SecurityContext joinK8sSecurity `yaml:"securityContext"`
}

// joinK8sSecurity is a pod's or a container's securityContext.
type joinK8sSecurity struct {
	RunAsNonRoot             *bool `yaml:"runAsNonRoot"`
	RunAsUser                *int  `yaml:"runAsUser"`
	RunAsGroup               *int  `yaml:"runAsGroup"`
	FSGroup                  *int  `yaml:"fsGroup"`
	AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	Capabilities             struct {
		Drop []string `yaml:"drop"`
		Add  []string `yaml:"add"`
	} `yaml:"capabilities"`
}

// joinK8sSpread is a topology spread constraint.
type joinK8sSpread struct {
	MaxSkew           int    `yaml:"maxSkew"`
	TopologyKey       string `yaml:"topologyKey"`
	WhenUnsatisfiable string `yaml:"whenUnsatisfiable"`
	LabelSelector     struct {
		MatchLabels map[string]string `yaml:"matchLabels"`
	} `yaml:"labelSelector"`
}

// joinK8sVolume is a pod's volume.
type joinK8sVolume struct {
	Name   string `yaml:"name"`
	Secret *struct {
		SecretName  string `yaml:"secretName"`
		DefaultMode int    `yaml:"defaultMode"`
	} `yaml:"secret"`
	ConfigMap *struct {
		Name string `yaml:"name"`
	} `yaml:"configMap"`
	EmptyDir *struct {
		Medium string `yaml:"medium"`
	} `yaml:"emptyDir"`
}
