//go:build ignore

// A bank account with methods, errors and a transaction log.
package main

import (
	"errors"
	"fmt"
)

var ErrInsufficient = errors.New("insufficient funds")

type Account struct {
	Owner   string
	balance int
	log     []string
}

func (a *Account) Deposit(n int) {
	a.balance += n
	a.log = append(a.log, fmt.Sprintf("+%d", n))
}

func (a *Account) Withdraw(n int) error {
	if n > a.balance {
		return fmt.Errorf("withdraw %d from %s: %w", n, a.Owner, ErrInsufficient)
	}
	a.balance -= n
	a.log = append(a.log, fmt.Sprintf("-%d", n))
	return nil
}

func Transfer(from, to *Account, n int) error {
	if err := from.Withdraw(n); err != nil {
		return err
	}
	to.Deposit(n)
	return nil
}

func main() {
	a, b := &Account{Owner: "ann"}, &Account{Owner: "bob"}
	a.Deposit(100)
	fmt.Println(Transfer(a, b, 30), a.balance, b.balance)
	err := Transfer(b, a, 50)
	fmt.Println(err, errors.Is(err, ErrInsufficient))
	fmt.Println(a.log, b.log)
}
