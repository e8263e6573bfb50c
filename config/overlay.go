package config

import "reflect"

// Overlay merges trusted layers into one Settings, later layers winning
// key by key: a set scalar (non-nil pointer, non-empty string) or a list
// (non-nil, so an explicit empty list clears) replaces the earlier value;
// tables (structs) and maps merge recursively, maps by key (presets,
// MCP servers, environment variables). Rule positions (Lines) are kept
// from every layer for traces.
func Overlay(layers ...Settings) Settings {
	var out Settings
	for _, l := range layers {
		overlayValue(reflect.ValueOf(&out).Elem(), reflect.ValueOf(l))
	}
	return out
}

func overlayValue(dst, src reflect.Value) {
	switch src.Kind() {
	case reflect.Struct:
		for i := range src.NumField() {
			if dst.Type().Field(i).IsExported() {
				overlayValue(dst.Field(i), src.Field(i))
			}
		}
	case reflect.Map:
		if src.IsNil() {
			return
		}
		if dst.IsNil() {
			dst.Set(reflect.MakeMapWithSize(src.Type(), src.Len()))
		}
		it := src.MapRange()
		for it.Next() {
			merged := reflect.New(src.Type().Elem()).Elem()
			if old := dst.MapIndex(it.Key()); old.IsValid() {
				merged.Set(old)
			}
			overlayValue(merged, it.Value())
			dst.SetMapIndex(it.Key(), merged)
		}
	case reflect.Pointer, reflect.Slice, reflect.Interface:
		if !src.IsNil() {
			dst.Set(src)
		}
	case reflect.String:
		if src.Len() > 0 {
			dst.Set(src)
		}
	default:
		if !src.IsZero() {
			dst.Set(src)
		}
	}
}
