package main

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// signedFlags are the integer flags whose negative values mean something
// (--dump -1: the last dump); every other integer flag counts, and a
// negative count is an error rather than "all".
var signedFlags = map[string]bool{"dump": true}

// wordErrors makes the command line's errors say in words what was
// expected: a flag's value that does not parse, a negative count, a
// missing or extra argument. It applies to root and every command below.
func wordErrors(root *cobra.Command) {
	root.SetFlagErrorFunc(flagError)
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Args != nil {
			c.Args = argsInWords(c.Args)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// flagError rewords a flag's value that does not parse, naming the flag,
// the value and what it takes.
func flagError(_ *cobra.Command, err error) error {
	var invalid *pflag.InvalidValueError
	if !errors.As(err, &invalid) {
		return err
	}
	f := invalid.GetFlag()
	want := "a valid value"
	switch f.Value.Type() {
	case "int", "int64", "uint", "uint64":
		want = "a whole number"
		if !signedFlags[f.Name] {
			want += " (0 or more)"
		}
	case "float64", "float32":
		want = "a number"
	case "bool":
		want = "true or false"
	case "duration":
		want = "a duration such as 30s or 5m"
	}
	return fmt.Errorf("--%s %q: expected %s", f.Name, invalid.GetValue(), want)
}

// checkCounts rejects a negative value of a counting flag of cmd.
func checkCounts(cmd *cobra.Command) error {
	var err error
	cmd.Flags().Visit(func(f *pflag.Flag) {
		if err != nil || signedFlags[f.Name] || f.Value.Type() != "int" {
			return
		}
		if n, perr := strconv.Atoi(f.Value.String()); perr == nil && n < 0 {
			err = fmt.Errorf("--%s %d: expected 0 or more", f.Name, n)
		}
	})
	return err
}

// argsInWords wraps a command's argument check so that its error names
// the arguments the command takes, from its usage line, instead of
// counting them.
func argsInWords(check cobra.PositionalArgs) cobra.PositionalArgs {
	return func(cmd *cobra.Command, args []string) error {
		if check(cmd, args) == nil {
			return nil
		}
		usage := strings.TrimSuffix(cmd.UseLine(), " [flags]")
		_, want, _ := strings.Cut(cmd.Use, " ")
		switch {
		case want == "":
			return fmt.Errorf("%s takes no arguments, got %q (usage: %s)", cmd.Name(), strings.Join(args, " "), usage)
		case len(args) == 0:
			return fmt.Errorf("%s needs %s (usage: %s)", cmd.Name(), want, usage)
		case len(args) == 1:
			return fmt.Errorf("%s takes %s, got only %q (usage: %s)", cmd.Name(), want, args[0], usage)
		}
		return fmt.Errorf("%s takes %s, got %d arguments: %q (usage: %s)", cmd.Name(), want, len(args), args, usage)
	}
}
