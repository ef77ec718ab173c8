// Package batchout holds the part of a Connect batch output's construction
// that is the same for every batch output of this module.
package batchout

import "github.com/redpanda-data/benthos/v4/public/service"

// Constructor adapts build, which makes an output from its parsed config, to
// service.RegisterBatchOutput. Every batch output takes max_in_flight and a
// batching policy (under batchingField) the same way, so only build differs.
func Constructor[O service.BatchOutput](batchingField string, build func(*service.ParsedConfig, *service.Resources) (O, error)) service.BatchOutputConstructor {
	return func(conf *service.ParsedConfig, mgr *service.Resources) (service.BatchOutput, service.BatchPolicy, int, error) {
		var pol service.BatchPolicy
		n, err := conf.FieldMaxInFlight()
		if err != nil {
			return nil, pol, 0, err
		}
		if pol, err = conf.FieldBatchPolicy(batchingField); err != nil {
			return nil, pol, 0, err
		}
		o, err := build(conf, mgr)
		if err != nil {
			return nil, pol, 0, err
		}
		return o, pol, n, nil
	}
}
