package display

import "testing"

// Under an MPI or Slurm launcher the ranks' output is a pseudo-terminal
// even when the job's log is a file, so progress is one line per round
// unless $SPARKNET_PROGRESS says otherwise.
func TestLiveOutputUnderLaunchers(t *testing.T) {
	tests := []struct {
		name     string
		terminal bool
		env      map[string]string
		live     bool
	}{
		{"terminal", true, nil, true},
		{"pipe", false, nil, false},
		{"Open MPI", true, map[string]string{"OMPI_COMM_WORLD_SIZE": "2"}, false},
		{"MPICH", true, map[string]string{"PMI_RANK": "0", "PMI_SIZE": "2"}, false},
		{"PMIx", true, map[string]string{"PMIX_RANK": "0"}, false},
		{"srun", true, map[string]string{"SLURM_STEP_ID": "0"}, false},
		{"asked for the bar", true, map[string]string{"OMPI_COMM_WORLD_SIZE": "2", "SPARKNET_PROGRESS": "live"}, true},
		{"asked for lines", true, map[string]string{"SPARKNET_PROGRESS": "lines"}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := liveFor(tt.terminal, func(k string) string { return tt.env[k] }); got != tt.live {
				t.Errorf("live %v, want %v", got, tt.live)
			}
		})
	}
}
